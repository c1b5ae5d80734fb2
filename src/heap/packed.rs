//! A column of numbers packed in blocks of 64: each block keeps its smallest value, and each
//! value its difference from it in as few bits as the block's largest difference needs. The
//! columns of a heap snapshot run in order (ids counting up, the small sizes of similar
//! objects, an array's element indexes, offsets that grow), so most blocks need a few bits
//! a value where a `Vec<u32>` takes 32. A block of 64 differences of `w` bits fills exactly
//! `w` words, so where a block starts is all its header needs besides its smallest value.

const BLOCK: usize = 64;

/// An immutable column of `u32`, read by index.
pub(crate) struct Packed {
    /// Each block's smallest value and where its words start in `words`, and one more
    /// entry for the end: a block's width in bits is the difference between its start and
    /// the next one's. Side by side, so reading a value touches one header.
    blocks: Vec<(u32, u32)>,
    words: Vec<u64>,
    len: usize,
}

impl Packed {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The value at `i`, which must be below `len()`.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> u32 {
        // Past `len` but within the last block reads its padding: a wrong number, never an
        // unchecked access; every index the analyses use was checked when the graph was built.
        debug_assert!(i < self.len, "index {i} out of a column of {}", self.len);
        let b = i / BLOCK;
        let (base, from) = self.blocks[b];
        let width = (self.blocks[b + 1].1 - from) as usize;
        base + extract(&self.words, from as usize, (i % BLOCK) * width, width)
    }

    /// The values at `i` and `i + 1` (both below `len()`), with one header read when they
    /// share a block, as they do but at a block's end.
    #[inline]
    pub(crate) fn pair(&self, i: usize) -> (u32, u32) {
        let k = i % BLOCK;
        if k == BLOCK - 1 {
            return (self.get(i), self.get(i + 1));
        }
        debug_assert!(
            i + 1 < self.len,
            "index {} out of a column of {}",
            i + 1,
            self.len
        );
        let b = i / BLOCK;
        let (base, from) = self.blocks[b];
        let width = (self.blocks[b + 1].1 - from) as usize;
        let at = |k: usize| base + extract(&self.words, from as usize, k * width, width);
        (at(k), at(k + 1))
    }

    /// The values in order, decoded a block at a time.
    pub(crate) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let mut block = [0u32; BLOCK];
        (0..self.len).map(move |i| {
            let k = i % BLOCK;
            if k == 0 {
                self.decode(i / BLOCK, &mut block);
            }
            block[k]
        })
    }

    fn decode(&self, b: usize, out: &mut [u32; BLOCK]) {
        let (base, from) = self.blocks[b];
        let width = (self.blocks[b + 1].1 - from) as usize;
        if width == 0 {
            out.fill(base);
            return;
        }
        for (k, v) in out.iter_mut().enumerate() {
            *v = base + extract(&self.words, from as usize, k * width, width);
        }
    }

    /// The values at or above `limit`, with their indexes, in order. A block whose every
    /// value is below it (its smallest plus the largest difference its width holds) is
    /// passed over undecoded: checking a column against a bound costs little when it holds.
    pub(crate) fn at_least(&self, limit: u64) -> impl Iterator<Item = (usize, u32)> + '_ {
        let data_blocks = self.blocks.len() - 1;
        (0..data_blocks)
            .filter(move |&b| {
                let (base, from) = self.blocks[b];
                let width = self.blocks[b + 1].1 - from;
                base as u64 + ((1u64 << width) - 1) >= limit
            })
            .flat_map(move |b| {
                let mut block = [0u32; BLOCK];
                self.decode(b, &mut block);
                let start = b * BLOCK;
                let within = (self.len - start).min(BLOCK);
                (0..within).filter_map(move |k| {
                    (block[k] as u64 >= limit).then_some((start + k, block[k]))
                })
            })
    }

    pub(crate) fn bytes(&self) -> usize {
        self.blocks.capacity() * 8 + self.words.capacity() * 8
    }
}

/// The `width`-bit number at bit `bit` of the words from `from` (0 for width 0). Without a
/// branch: the word after is always there (`finish` pads), and a number within one word
/// takes nothing from it (`(hi << 1) << 63` is 0).
#[inline]
fn extract(words: &[u64], from: usize, bit: usize, width: usize) -> u32 {
    let at = from + bit / 64;
    let shift = bit % 64;
    let (lo, hi) = (words[at], words[at + 1]);
    let v = (lo >> shift) | ((hi << 1) << (63 - shift));
    (v & ((1u64 << width) - 1)) as u32
}

impl FromIterator<u32> for Packed {
    fn from_iter<I: IntoIterator<Item = u32>>(values: I) -> Packed {
        let mut b = Builder::new();
        for v in values {
            b.push(v);
        }
        b.finish()
    }
}

/// An immutable column of `i32` (distances with their "unreachable" below zero, context
/// ordinals with "none" and "shared" below zero), packed as `Packed` in an order-keeping
/// mapping to `u32`.
pub(crate) struct PackedSigned(Packed);

impl PackedSigned {
    #[inline]
    pub(crate) fn get(&self, i: usize) -> i32 {
        (self.0.get(i) ^ SIGN) as i32
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = i32> + '_ {
        self.0.iter().map(|v| (v ^ SIGN) as i32)
    }

    pub(crate) fn bytes(&self) -> usize {
        self.0.bytes()
    }
}

const SIGN: u32 = 1 << 31;

impl FromIterator<i32> for PackedSigned {
    fn from_iter<I: IntoIterator<Item = i32>>(values: I) -> PackedSigned {
        PackedSigned(values.into_iter().map(|v| v as u32 ^ SIGN).collect())
    }
}

/// Builds a column one value at a time, a block at a time.
pub(crate) struct Builder {
    column: Packed,
    block: [u32; BLOCK],
    filled: usize,
}

impl Builder {
    pub(crate) fn new() -> Builder {
        Builder {
            column: Packed {
                blocks: Vec::new(),
                words: Vec::new(),
                len: 0,
            },
            block: [0; BLOCK],
            filled: 0,
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, v: u32) {
        self.block[self.filled] = v;
        self.filled += 1;
        self.column.len += 1;
        if self.filled == BLOCK {
            self.flush();
        }
    }

    fn flush(&mut self) {
        let values = &mut self.block;
        // A last block that is not full is padded with its first value: the padding widens
        // nothing and is never read.
        let first = values[0];
        values[self.filled..].fill(first);
        let (min, max) = values
            .iter()
            .fold((u32::MAX, 0), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        let width = (32 - (max - min).leading_zeros()) as usize;
        let mut words = [0u64; 32];
        if width > 0 {
            for (k, &v) in values.iter().enumerate() {
                let d = (v - min) as u64;
                let bit = k * width;
                let (at, shift) = (bit / 64, bit % 64);
                words[at] |= d << shift;
                if shift + width > 64 {
                    words[at + 1] |= d >> (64 - shift);
                }
            }
        }
        let c = &mut self.column;
        c.blocks.push((min, c.words.len() as u32));
        c.words.extend_from_slice(&words[..width]);
        self.filled = 0;
    }

    pub(crate) fn finish(mut self) -> Packed {
        if self.filled > 0 {
            self.flush();
        }
        let c = &mut self.column;
        c.blocks.push((0, c.words.len() as u32));
        // The words `extract` may read past the last block's (two, for a last block of
        // width 0, which starts at the end).
        c.words.extend([0, 0]);
        c.blocks.shrink_to_fit();
        c.words.shrink_to_fit();
        self.column
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_values_at_least_a_bound() {
        let values: Vec<u32> = (0..1_000u32)
            .map(|i| match i % 97 {
                0 => u32::MAX,
                5 => 40_000 + i,
                _ => i % 300,
            })
            .collect();
        let p: Packed = values.iter().copied().collect();
        let max = u32::MAX as u64;
        for limit in [
            0,
            1,
            299,
            300,
            40_000,
            40_999,
            41_000,
            max - 1,
            max,
            max + 1,
        ] {
            let found: Vec<(usize, u32)> = p.at_least(limit).collect();
            let expected: Vec<(usize, u32)> = values
                .iter()
                .copied()
                .enumerate()
                .filter(|&(_, v)| v as u64 >= limit)
                .collect();
            assert_eq!(found, expected, "limit {limit}");
        }
        let empty: Packed = std::iter::empty().collect();
        assert_eq!(empty.at_least(0).count(), 0);
    }

    #[test]
    fn reads_back_what_was_pushed() {
        let cases: Vec<Vec<u32>> = vec![
            vec![],
            vec![7],
            (0..64).collect(),
            (0..65).map(|i| i * 3).collect(),
            (0..1000)
                .map(|i| if i % 7 == 0 { u32::MAX } else { i })
                .collect(),
            (0..300)
                .map(|i| (i as u32).wrapping_mul(2_654_435_761))
                .collect(),
            vec![5; 200],
        ];
        for values in cases {
            let p: Packed = values.iter().copied().collect();
            for i in 0..values.len().saturating_sub(1) {
                assert_eq!(p.pair(i), (values[i], values[i + 1]));
            }
            assert_eq!(p.len(), values.len());
            assert_eq!(p.iter().collect::<Vec<_>>(), values);
        }
    }

    #[test]
    fn signed_values_read_back() {
        let values = [-5, 0, 1, 100_000_000, i32::MIN, i32::MAX, -1, -2];
        let p: PackedSigned = values.iter().copied().collect();
        assert_eq!(p.iter().collect::<Vec<_>>(), values);
        assert_eq!(p.get(3), 100_000_000);
    }

    #[test]
    fn ordered_values_take_few_bits() {
        let p: Packed = (0..64_000u32).map(|i| 1_000_000 + 2 * i).collect();
        // 7 bits a value and the blocks' headers, against 32 bits in a Vec.
        assert!(p.bytes() < 64_000 * 2, "{} bytes", p.bytes());
    }
}

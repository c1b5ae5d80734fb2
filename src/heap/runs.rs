//! Values grouped by key, packed: key `k`'s values are `values[first[k]..first[k + 1]]`, each
//! run in the reverse of the order in which its pairs came (DevTools fills its indexes from
//! each run's end). Built a range of keys at a time, so the unpacked values held at once
//! stay under a bound whatever the graph's size.

use std::ops::Range;

use super::packed::{Builder, Packed};

pub(crate) struct Runs {
    first: Packed,
    values: Packed,
}

impl Runs {
    /// Groups the pairs `(key, value)` that `pairs` yields (each call the same ones, in the
    /// same order) by key, for keys below `keys`, holding at most `chunk` unpacked values
    /// at once (more only for a key with more values than that). `pairs` is walked once to
    /// count, then once per range of keys.
    pub(crate) fn group<I>(keys: usize, pairs: impl Fn() -> I, chunk: u32) -> Runs
    where
        I: Iterator<Item = (u32, u32)>,
    {
        let mut counts = vec![0u32; keys + 1];
        for (key, _) in pairs() {
            counts[key as usize] += 1;
        }
        counts_to_starts(&mut counts);
        let first: Packed = counts.into_iter().collect();
        let mut values = Builder::new();
        let mut from = 0;
        while from < keys {
            let mut to = from + 1;
            while to < keys && first.get(to + 1) - first.get(from) <= chunk {
                to += 1;
            }
            fill(&first, pairs(), from..to, &mut values);
            from = to;
        }
        Runs {
            first,
            values: values.finish(),
        }
    }

    pub(crate) fn of(&self, key: u32) -> Range<usize> {
        self.first.get(key as usize) as usize..self.first.get(key as usize + 1) as usize
    }

    pub(crate) fn value(&self, at: usize) -> u32 {
        self.values.get(at)
    }

    pub(crate) fn bytes(&self) -> usize {
        self.first.bytes() + self.values.bytes()
    }
}

/// Turns `first`, holding each node's count in its first `n` entries, into where each
/// node's run starts in one array of all runs, the end in its last entry (CSR layout).
/// Returns that total.
pub(crate) fn counts_to_starts(first: &mut [u32]) -> u32 {
    let n = first.len() - 1;
    let mut slot = 0u32;
    for f in first.iter_mut().take(n) {
        let count = *f;
        *f = slot;
        slot += count;
    }
    first[n] = slot;
    slot
}

/// Appends the runs of the keys in `range`, each filled from its end.
fn fill(
    first: &Packed,
    pairs: impl Iterator<Item = (u32, u32)>,
    range: Range<usize>,
    out: &mut Builder,
) {
    let base = first.get(range.start);
    let mut chunk = vec![0u32; (first.get(range.end) - base) as usize];
    let mut next: Vec<u32> = (range.start + 1..=range.end)
        .map(|k| first.get(k))
        .collect();
    for (key, value) in pairs {
        if range.contains(&(key as usize)) {
            let at = &mut next[key as usize - range.start];
            *at -= 1;
            chunk[(*at - base) as usize] = value;
        }
    }
    for v in chunk {
        out.push(v);
    }
}

#[cfg(test)]
mod tests {
    use super::Runs;

    #[test]
    fn runs_built_a_range_at_a_time_are_the_same() {
        // Key i gets i values; key 3 none; pairs interleaved.
        let pairs: Vec<(u32, u32)> = (0..40u32)
            .flat_map(|v| {
                (0..7u32)
                    .filter(move |&k| k != 3 && v % 7 < k)
                    .map(move |k| (k, v))
            })
            .collect();
        let whole = Runs::group(7, || pairs.iter().copied(), u32::MAX);
        for key in 0..7u32 {
            let got: Vec<u32> = whole.of(key).map(|i| whole.value(i)).collect();
            let mut want: Vec<u32> = pairs.iter().filter(|p| p.0 == key).map(|p| p.1).collect();
            want.reverse();
            assert_eq!(got, want, "key {key}");
        }
        for chunk in [0, 1, 2, 5, 11] {
            let parts = Runs::group(7, || pairs.iter().copied(), chunk);
            for key in 0..7u32 {
                let a: Vec<u32> = parts.of(key).map(|i| parts.value(i)).collect();
                let b: Vec<u32> = whole.of(key).map(|i| whole.value(i)).collect();
                assert_eq!(a, b, "chunk {chunk}, key {key}");
            }
        }
    }
}

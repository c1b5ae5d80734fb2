//! Retained sizes as the questions read them. They are sums of self sizes, so whole numbers,
//! and none is larger than the root's, which retains the whole heap: when that fits 32 bits
//! every size is packed (see `packed`), else they stay 64-bit floats.

use super::packed::Packed;

pub(crate) enum Retained {
    Packed(Packed),
    Wide(Vec<f64>),
}

impl Retained {
    pub(super) fn new(sizes: Vec<f64>) -> Retained {
        let fits = |s: f64| (0.0..=u32::MAX as f64).contains(&s) && s.fract() == 0.0;
        if sizes.iter().all(|&s| fits(s)) {
            Retained::Packed(sizes.iter().map(|&s| s as u32).collect())
        } else {
            Retained::Wide(sizes)
        }
    }

    #[inline]
    pub(crate) fn get(&self, node: usize) -> f64 {
        match self {
            Retained::Packed(p) => p.get(node) as f64,
            Retained::Wide(v) => v[node],
        }
    }

    pub(super) fn bytes(&self) -> usize {
        match self {
            Retained::Packed(p) => p.bytes(),
            Retained::Wide(v) => v.capacity() * 8,
        }
    }
}

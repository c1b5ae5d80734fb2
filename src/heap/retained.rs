//! Retained sizes as the questions read them. They are sums of self sizes, so whole numbers,
//! and none is larger than the root's, which retains the whole heap: when that fits 32 bits
//! every size is packed (see `packed`), else they stay 64-bit floats (see
//! `dominators::Tree::retention`).

use super::packed::Packed;

pub(crate) enum Retained {
    Packed(Packed),
    Wide(Vec<f64>),
}

impl Retained {
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

//! The snapshot's string table, kept as one text and the end of each string in it (a heap
//! of a million strings costs one allocation, not a million).

pub(crate) struct Strings {
    text: String,
    ends: Vec<u32>,
}

impl Strings {
    pub(super) fn new() -> Strings {
        Strings {
            text: String::new(),
            ends: Vec::new(),
        }
    }

    /// Adds `s` and returns its index, or `None` when the table would pass 4 GB.
    pub(super) fn push(&mut self, s: &str) -> Option<u32> {
        let end = u32::try_from(self.text.len() + s.len()).ok()?;
        let index = u32::try_from(self.ends.len()).ok()?;
        self.text.push_str(s);
        self.ends.push(end);
        Some(index)
    }

    pub(super) fn shrink(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }

    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    /// The string at `index` (empty past the end: indexes are checked when the snapshot is
    /// built, so this is only for strings that are not there, as JavaScript's `undefined`).
    pub(crate) fn get(&self, index: u32) -> &str {
        let i = index as usize;
        let Some(&end) = self.ends.get(i) else {
            return "";
        };
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.text.get(start as usize..end as usize).unwrap_or("")
    }

    /// The index of the first string equal to `s`, as `strings.indexOf(s)`.
    pub(super) fn index_of(&self, s: &str) -> Option<u32> {
        (0..self.ends.len() as u32).find(|&i| self.get(i) == s)
    }

    pub(super) fn bytes(&self) -> usize {
        self.text.capacity() + self.ends.capacity() * 4
    }
}

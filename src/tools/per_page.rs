//! What one tool family keeps per page: a map from page to the family's state.

use std::collections::HashMap;

use crate::browser::PageId;

/// What one tool family keeps per page, created on first use and dropped with the page.
pub(crate) struct PerPage<T>(HashMap<PageId, T>);

impl<T> Default for PerPage<T> {
    fn default() -> Self {
        PerPage(HashMap::new())
    }
}

impl<T: Default> PerPage<T> {
    pub(crate) fn get(&self, page: PageId) -> Option<&T> {
        self.0.get(&page)
    }

    pub(crate) fn get_mut(&mut self, page: PageId) -> Option<&mut T> {
        self.0.get_mut(&page)
    }

    /// The page's state, made empty the first time.
    pub(crate) fn entry(&mut self, page: PageId) -> &mut T {
        self.0.entry(page).or_default()
    }

    pub(crate) fn remove(&mut self, page: PageId) {
        self.0.remove(&page);
    }
}

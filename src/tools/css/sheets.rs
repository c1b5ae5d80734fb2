//! What a page reported of its style sheets since CSS was enabled on it: the names and
//! first lines the answer gives each rule's source from. `Ctx` holds one [`Sheets`] per page.

use std::collections::HashMap;

use crate::cdp::generated::css::CSSStyleSheetHeader;

/// The most style sheets remembered per page: a page that keeps adding sheets cannot grow
/// the server's memory without bound (the others show without a file name).
const MAX_SHEETS: usize = 4096;

/// What the answer needs to know of a style sheet (from `CSS.styleSheetAdded`).
#[derive(Debug, Clone, Default)]
pub(super) struct Sheet {
    pub(super) url: String,
    pub(super) start_line: f64,
    pub(super) constructed: bool,
}

/// A page's style sheets, by id.
#[derive(Default)]
pub(crate) struct Sheets {
    /// `CSS.enable` was sent (the browser reports every sheet before it answers, and later
    /// ones as they come).
    pub(super) enabled: bool,
    pub(super) known: HashMap<String, Sheet>,
}

impl Sheets {
    /// `CSS.styleSheetAdded`.
    pub(super) fn added(&mut self, header: CSSStyleSheetHeader) {
        if self.known.len() < MAX_SHEETS {
            let sheet = Sheet {
                url: header.source_url,
                start_line: header.start_line,
                constructed: header.is_constructed,
            };
            self.known.insert(header.style_sheet_id, sheet);
        }
    }

    /// `CSS.styleSheetRemoved`.
    pub(super) fn removed(&mut self, id: &str) {
        self.known.remove(id);
    }
}

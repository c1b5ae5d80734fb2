//! One page of a listing (console messages, network requests, a style's rules, a heap
//! snapshot's classes and objects), as the reference pages it, and the lines that say which
//! page it is.

use serde_json::{json, Number, Value};

/// The paging arguments of a listing tool (`pageSize`, `pageIdx`, declared in its argument
/// list). Kept as JSON numbers because only a whole number written without a fraction counts,
/// as ever: `2.0` reads as absent.
pub(crate) struct Paging {
    page_size: Option<Number>,
    page_idx: Option<Number>,
}

impl Paging {
    /// The paging a call's `pageSize` and `pageIdx` ask for.
    pub(crate) fn new(page_size: Option<Number>, page_idx: Option<Number>) -> Paging {
        Paging {
            page_size,
            page_idx,
        }
    }

    /// Pages of `size`, showing page `idx` (as another tool's defaults ask).
    pub(crate) fn of(size: u64, idx: u64) -> Paging {
        Paging::new(Some(size.into()), Some(idx.into()))
    }
}

/// One page of a listing, as the reference computes it: without `pageSize` and `pageIdx`
/// everything; otherwise pages of `pageSize` (default 20), and an out-of-range `pageIdx`
/// falls back to the first page.
pub(crate) struct Paged {
    pub start: usize,
    pub end: usize,
    /// `Showing a-b of n (Page x of y).` and the next/previous page hints.
    pub lines: Vec<String>,
    pub structured: Value,
}

pub(crate) fn paginate(total: usize, paging: &Paging) -> Paged {
    let size = paging.page_size.as_ref().and_then(Number::as_u64);
    let idx = paging.page_idx.as_ref().and_then(Number::as_u64);
    let asked = size.is_some() || idx.is_some();
    let (current, pages, start, end, invalid) = if asked {
        let size = size.unwrap_or(20).max(1) as usize;
        let pages = total.div_ceil(size).max(1);
        let (current, invalid) = match idx {
            Some(i) if (i as usize) < pages => (i as usize, false),
            Some(_) => (0, true),
            None => (0, false),
        };
        let start = (current * size).min(total);
        (current, pages, start, (start + size).min(total), invalid)
    } else {
        (0, 1, 0, total, false)
    };
    let mut lines = Vec::new();
    if invalid {
        lines.push("Invalid page number provided. Showing first page.".to_owned());
    }
    let shown_start = if total == 0 { 0 } else { start + 1 };
    lines.push(format!(
        "Showing {shown_start}-{end} of {total} (Page {} of {pages}).",
        current + 1
    ));
    let has_next = current + 1 < pages;
    let has_previous = current > 0;
    if asked {
        if has_next {
            lines.push(format!("Next page: {}", current + 1));
        }
        if has_previous {
            lines.push(format!("Previous page: {}", current - 1));
        }
    }
    Paged {
        start,
        end,
        lines,
        structured: json!({
            "currentPage": current,
            "totalPages": pages,
            "hasNextPage": has_next,
            "hasPreviousPage": has_previous,
            "startIndex": start,
            "endIndex": end,
            "invalidPage": invalid,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paging of arguments as a call gives them.
    fn decode(v: Value) -> Paging {
        let number = |key: &str| serde_json::from_value(v[key].clone()).unwrap();
        Paging::new(number("pageSize"), number("pageIdx"))
    }

    #[test]
    fn pagination_matches_the_reference() {
        let p = paginate(8, &decode(json!({})));
        assert_eq!(p.lines, vec!["Showing 1-8 of 8 (Page 1 of 1)."]);
        // A size written with a fraction counts as absent, as it always has.
        let p = paginate(8, &decode(json!({"pageSize": 2.0})));
        assert_eq!(p.lines, vec!["Showing 1-8 of 8 (Page 1 of 1)."]);
        let p = paginate(8, &decode(json!({"pageSize": 2, "pageIdx": 1})));
        assert_eq!(
            p.lines,
            vec![
                "Showing 3-4 of 8 (Page 2 of 4).",
                "Next page: 2",
                "Previous page: 0"
            ]
        );
        let p = paginate(8, &decode(json!({"pageSize": 2, "pageIdx": 9})));
        assert_eq!(
            p.lines[0],
            "Invalid page number provided. Showing first page."
        );
        assert_eq!((p.start, p.end), (0, 2));
        let p = paginate(8, &decode(json!({"pageIdx": 1})));
        assert_eq!(p.lines[1], "Showing 1-8 of 8 (Page 1 of 1).");
        let p = paginate(45, &decode(json!({"pageIdx": 2})));
        assert_eq!(
            p.lines,
            vec!["Showing 41-45 of 45 (Page 3 of 3).", "Previous page: 1"]
        );
    }
}

//! The heap tools' answers laid out as the reference lays them out: sizes in kB as DevTools
//! prints them, names cut at `maxNameLength` on one line, the summary's blocks.

use crate::heap::{EdgeInfo, NodeInfo, Snapshot};
use crate::numbers::js_number;
use crate::paging::{paginate, Paging};

/// The reference's default `maxNameLength`.
pub(super) const MAX_NAME_LENGTH: usize = 100;

/// Bytes as kilobytes, as DevTools' `formatBytesToKb` prints them (en-US): one decimal
/// under 100 kB, else a whole number with thousands separators; a no-break space, `kB`.
pub(super) fn kb(bytes: f64) -> String {
    let k = bytes / 1000.0;
    let decimals = if k < 100.0 { 1 } else { 0 };
    format!("{}\u{a0}kB", round_half_expand(k, decimals))
}

/// `x` rounded half away from zero at `decimals`, from its shortest decimal form (as
/// `Intl.NumberFormat` rounds), with the integer part grouped in thousands.
fn round_half_expand(x: f64, decimals: usize) -> String {
    let shortest = format!("{}", x.abs());
    let (int, frac) = shortest.split_once('.').unwrap_or((&shortest, ""));
    let mut digits: Vec<u8> = int
        .bytes()
        .chain(frac.bytes().chain(std::iter::repeat(b'0')).take(decimals))
        .collect();
    let up = frac.as_bytes().get(decimals).is_some_and(|&d| d >= b'5');
    if up {
        let mut i = digits.len();
        loop {
            if i == 0 {
                digits.insert(0, b'1');
                break;
            }
            i -= 1;
            if digits[i] == b'9' {
                digits[i] = b'0';
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    let split = digits.len() - decimals;
    let int = group(&digits[..split]);
    let sign = if x < 0.0 { "-" } else { "" };
    if decimals == 0 {
        format!("{sign}{int}")
    } else {
        let frac = String::from_utf8_lossy(&digits[split..]);
        format!("{sign}{int}.{frac}")
    }
}

fn group(digits: &[u8]) -> String {
    let mut out = String::new();
    for (i, d) in digits.iter().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(*d as char);
    }
    out
}

/// A name on one line: cut to `max` (JavaScript) characters with `...`, line breaks escaped.
pub(super) fn name(name: &str, max: Option<usize>) -> String {
    truncate(name, max)
        .replace('\r', "\\r")
        .replace('\n', "\\n")
}

/// `name` cut to `max` (JavaScript) characters, with `...` when cut.
pub(super) fn truncate(name: &str, max: Option<usize>) -> String {
    let max = max.unwrap_or(MAX_NAME_LENGTH);
    let mut units = 0;
    let mut cut = None;
    for (at, c) in name.char_indices() {
        if units + c.len_utf16() > max {
            cut = Some(at);
            break;
        }
        units += c.len_utf16();
    }
    match cut {
        Some(at) => format!("{}...", &name[..at]),
        None => name.to_owned(),
    }
}

/// A listing of objects, largest retained size first (ties in the given order), one page
/// of it and then which page it is.
pub(super) fn nodes(mut nodes: Vec<NodeInfo>, paging: &Paging, max: Option<usize>) -> String {
    nodes.sort_by(|a, b| b.retained.total_cmp(&a.retained));
    let paged = paginate(nodes.len(), paging);
    let mut lines = vec!["## Heap Snapshot Data".to_owned()];
    let shown = &nodes[paged.start..paged.end];
    let mut listing: Vec<String> = Vec::new();
    if !shown.is_empty() {
        listing.push("nodeId,nodeName,type,distance,selfSize,retainedSize".to_owned());
    }
    for n in shown {
        listing.push(format!(
            "{},{},{},{},{},{}",
            n.id,
            name(&n.name, max),
            n.type_name,
            n.distance,
            kb(n.self_size as f64),
            kb(n.retained)
        ));
    }
    lines.push(listing.join("\n"));
    lines.extend(paged.lines);
    lines.join("\n")
}

/// A listing of edges in the given order, one page of it and then which page it is.
pub(super) fn edges(edges: &[EdgeInfo], paging: &Paging, max: Option<usize>) -> String {
    let paged = paginate(edges.len(), paging);
    let shown = &edges[paged.start..paged.end];
    let mut listing: Vec<String> = Vec::new();
    if !shown.is_empty() {
        listing.push("name,type,nodeId,nodeName,selfSize,retainedSize".to_owned());
    }
    for e in shown {
        listing.push(format!(
            "{},{},{},{},{},{}",
            name(&e.name, max),
            e.type_name,
            e.node.id,
            name(&e.node.name, max),
            kb(e.node.self_size as f64),
            kb(e.node.retained)
        ));
    }
    let mut lines = vec!["## Heap Snapshot Data".to_owned(), listing.join("\n")];
    lines.extend(paged.lines);
    lines.join("\n")
}

/// `get_heapsnapshot_summary`'s answer.
pub(super) fn summary(s: &Snapshot, max: Option<usize>) -> String {
    let st = s.statistics();
    let d = s.static_data();
    let n = |x: f64| js_number(x);
    let mut lines = vec![
        "## Heap Snapshot Data".to_owned(),
        format!(
            "Statistics: {{\n  \"total\": {},\n  \"native\": {{\n    \"total\": {},\n    \"typedArrays\": {}\n  }},\n  \"v8heap\": {{\n    \"total\": {},\n    \"code\": {},\n    \"jsArrays\": {},\n    \"strings\": {},\n    \"system\": {}\n  }}\n}}",
            n(st.total), n(st.native), n(st.typed_arrays), n(st.total - st.native),
            n(st.code), n(st.js_arrays), n(st.strings), n(st.system)
        ),
        format!(
            "Static Data: {{\n  \"nodeCount\": {},\n  \"rootNodeIndex\": {},\n  \"totalSize\": {},\n  \"maxJSObjectId\": {}\n}}",
            d.node_count, d.root_index, n(d.total_size), d.max_js_object_id
        ),
        "### Native Contexts".to_owned(),
        "nodeId,nodeName,selfSize,retainedSize,attributedSize".to_owned(),
    ];
    let sizes = s.native_context_sizes();
    let mut contexts: Vec<_> = sizes.contexts.iter().collect();
    // Stable, as JavaScript's sort: equal sizes keep the snapshot's order.
    contexts.sort_by(|a, b| b.attributed.total_cmp(&a.attributed));
    for c in contexts {
        lines.push(format!(
            "{},{},{},{},{}",
            c.id,
            name(&c.name, max),
            kb(c.self_size as f64),
            kb(c.retained),
            kb(c.attributed)
        ));
    }
    lines.push(format!("Shared Size: {}", kb(sizes.shared)));
    lines.push(format!("Unattributed Size: {}", kb(sizes.unattributed)));
    let r = s.context_retention();
    lines.push("### Retained by Context Summary".to_owned());
    lines.push(format!("Context count: {}", r.contexts));
    lines.push(format!(
        "Retained by context size: {} ({} objects)",
        kb(r.retained_size),
        r.retained_count
    ));
    lines.push(format!(
        "Not retained by context size: {} ({} objects)",
        kb(r.other_size),
        r.other_count
    ));
    lines.push(format!(
        "Total size: {}",
        kb(r.retained_size + r.other_size)
    ));
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kilobytes_print_as_devtools_prints_them() {
        assert_eq!(kb(1835994.0), "1,836\u{a0}kB");
        assert_eq!(kb(58450.0), "58.5\u{a0}kB");
        assert_eq!(kb(58449.0), "58.4\u{a0}kB");
        assert_eq!(kb(0.0), "0.0\u{a0}kB");
        assert_eq!(kb(99960.0), "100.0\u{a0}kB");
        assert_eq!(kb(100_500.0), "101\u{a0}kB");
        assert_eq!(kb(-1500.0), "-1.5\u{a0}kB");
    }

    #[test]
    fn names_are_cut_in_javascript_characters() {
        assert_eq!(name("system / NativeContext", Some(12)), "system / Nat...");
        assert_eq!(name("a\nb", None), "a\\nb");
        assert_eq!(name("😀😀", Some(2)), "😀...");
    }
}

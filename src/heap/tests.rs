use super::Snapshot;

/// A snapshot in Chromium's layout: nodes `[type, name, id, self_size, edge_count]`, edges
/// `[type, name_or_index, to_node]` (to_node as an index in `nodes`).
fn snapshot(nodes: &str, edges: &str, strings: &str) -> String {
    format!(
        r#"{{"snapshot":{{"meta":{{"node_fields":["type","name","id","self_size","edge_count"],
"node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic","concatenated string","sliced string"],"string","number","number","number"],
"edge_fields":["type","name_or_index","to_node"],
"edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"]}},
"node_count":0,"edge_count":0}},
"nodes":[{nodes}],"edges":[{edges}],"strings":[{strings}]}}"#
    )
}

fn load(text: &str) -> Result<Snapshot, String> {
    Snapshot::read(text.as_bytes(), Some(text.len() as u64))
}

/// root(synthetic) -> a(object, 10) -> b(object, 20); root -> c(object, 5) -> b.
/// b has two retainers, so the root dominates it.
fn diamond() -> String {
    snapshot(
        "9,0,1,0,2, 3,1,3,10,1, 3,2,5,20,0, 3,3,7,5,1",
        "2,4,5, 2,4,15, 2,4,10, 2,4,10",
        r#""","A","B","C","x""#,
    )
}

fn retained(s: &Snapshot) -> Vec<f64> {
    (0..s.graph.node_count()).map(|n| s.retained(n)).collect()
}

fn dominators(s: &Snapshot) -> Vec<u32> {
    s.dominator.iter().collect()
}

fn distances(s: &Snapshot) -> Vec<i32> {
    s.distances.iter().collect()
}

#[test]
fn retained_sizes_follow_the_dominator_tree() {
    let s = load(&diamond()).unwrap();
    assert_eq!(retained(&s), vec![35.0, 10.0, 20.0, 5.0]);
    assert_eq!(dominators(&s), vec![0, 0, 0, 0]);
    assert_eq!(distances(&s), vec![100_000_000, 1, 2, 1]);
    let d = s.static_data();
    assert_eq!(
        (d.node_count, d.root_index, d.total_size, d.max_js_object_id),
        (4, 0, 35.0, 7)
    );
}

#[test]
fn a_single_owner_is_charged_its_objects() {
    // root -> a -> b only: b's size moves into a (its single owner) before retention.
    let text = snapshot(
        "9,0,1,0,1, 3,1,3,10,1, 1,2,5,20,0",
        "2,3,5, 2,3,10",
        r#""","A","B","x""#,
    );
    let s = load(&text).unwrap();
    let sizes: Vec<u32> = (0..3).map(|i| s.graph.self_size(i)).collect();
    assert_eq!(sizes, vec![0, 30, 0]);
    assert_eq!(retained(&s), vec![30.0, 30.0, 0.0]);
}

#[test]
fn weak_edges_neither_retain_nor_count_for_distance() {
    let text = snapshot(
        "9,0,1,0,2, 3,1,3,10,1, 3,2,5,20,0",
        "2,3,5, 6,3,10, 2,3,10",
        r#""","A","B","x""#,
    );
    let s = load(&text).unwrap();
    assert_eq!(dominators(&s), vec![0, 0, 1]);
    assert_eq!(retained(&s), vec![30.0, 30.0, 20.0]);
    assert_eq!(distances(&s), vec![100_000_000, 1, 1]);
}

#[test]
fn gzip_is_read_as_it_streams() {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(diamond().as_bytes()).unwrap();
    let s = Snapshot::read(&gz.finish().unwrap()[..], None).unwrap();
    assert_eq!(s.static_data().total_size, 35.0);
}

fn error(text: &str) -> String {
    match load(text) {
        Ok(_) => panic!("loaded a malformed snapshot"),
        Err(e) => e,
    }
}

#[test]
fn malformed_files_are_refused_with_what_is_wrong() {
    let strings = r#""","A","B","C","x""#;
    let cases = [
        (
            snapshot("9,0,1,0,2, 3,1,3", "", strings),
            "multiple of its 5 node fields",
        ),
        (
            snapshot("9,0,1,0,1", "2,4,7", strings),
            "edge 0 points to 7",
        ),
        (
            snapshot("9,0,1,0,1", "2,4,50", strings),
            "edge 0 points to 50",
        ),
        (
            snapshot("9,0,1,0,3", "2,4,0", strings),
            "edge counts add up to more",
        ),
        (
            snapshot("9,99,1,0,0", "", strings),
            "node 0 names string 99",
        ),
        (snapshot("77,0,1,0,0", "", strings), "node 0 has type 77"),
        (
            snapshot("9,0,1,0,1", "2,99,0", strings),
            "edge 0 names string 99",
        ),
        (snapshot("9,0,-1,0,0", "", strings), "invalid value"),
        (snapshot("9,0,1.5,0,0", "", strings), "invalid type"),
        (snapshot("", "", strings), "no nodes"),
        (diamond()[..200].to_owned(), "EOF"),
        (
            r#"{"nodes":[1]}"#.to_owned(),
            "before the \"snapshot\" header",
        ),
        (r#"{"snapshot":{"meta":{}}}"#.to_owned(), "missing field"),
        ("[]".to_owned(), "invalid type"),
        ("".to_owned(), "EOF"),
    ];
    refused(&cases);
}

/// Each text is refused with an error that says the wanted words.
fn refused(cases: &[(String, &str)]) {
    for (text, wanted) in cases {
        let e = error(text);
        assert!(e.contains(wanted), "{wanted:?} not in {e:?}");
    }
}

#[test]
fn a_missing_field_in_the_meta_is_named() {
    let text = diamond().replace("\"edge_count\"]", "\"count\"]");
    assert!(error(&text).contains("node_fields has no \"edge_count\""));
}

#[test]
fn cycles_everywhere_still_end() {
    // Every node points at every node, itself included.
    let n = 50;
    let mut nodes = vec!["9,0,1,0,50".to_owned()];
    nodes.extend((1..n).map(|i| format!("3,1,{},8,50", i * 2 + 1)));
    let edges: Vec<String> = (0..n * n).map(|i| format!("2,4,{}", (i % n) * 5)).collect();
    let text = snapshot(&nodes.join(","), &edges.join(","), r#""","A","B","C","x""#);
    let s = load(&text).unwrap();
    assert_eq!(s.static_data().total_size, 8.0 * 49.0);
    assert!(dominators(&s).iter().all(|&d| d == 0));
}

#[test]
fn a_declared_size_far_beyond_the_file_reserves_nothing_for_it() {
    let text = diamond().replace(
        "\"node_count\":0,\"edge_count\":0",
        "\"node_count\":4000000000,\"edge_count\":9000000000",
    );
    assert!(text.contains("4000000000"));
    let s = load(&text).unwrap();
    assert!(
        s.graph.node_type.capacity() < 1000,
        "{}",
        s.graph.node_type.capacity()
    );
}

#[test]
fn one_huge_string_is_only_as_big_as_the_file() {
    let huge = "x".repeat(20 << 20);
    let text = snapshot(
        "9,0,1,0,2, 3,1,3,10,1, 3,2,5,20,0, 3,3,7,5,1",
        "2,4,5, 2,4,15, 2,4,10, 2,4,10",
        &format!("\"\",\"{huge}\",\"B\",\"C\",\"x\""),
    );
    let s = load(&text).unwrap();
    assert_eq!(s.graph.raw_name(1).len(), 20 << 20);
}

/// Hands out its text one byte per read, so every token straddles the reader's refills.
struct OneByte<'a>(&'a [u8]);

impl std::io::Read for OneByte<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let Some((&b, rest)) = self.0.split_first() else {
            return Ok(0);
        };
        if buf.is_empty() {
            return Ok(0);
        }
        buf[0] = b;
        self.0 = rest;
        Ok(1)
    }
}

#[test]
fn strings_decode_as_json_whatever_the_reads() {
    let strings = r#""","A\u00e9\"\\\/\n\t","\ud83d\ude00 é","C","x""#;
    let text = snapshot(
        "9,0,1,0,2, 3,1,3,10,1, 3,2,5,20,0, 3,3,7,5,1",
        "2,4,5, 2,4,15, 2,4,10, 2,4,10",
        strings,
    );
    for s in [
        load(&text).unwrap(),
        Snapshot::read(OneByte(text.as_bytes()), None).unwrap(),
    ] {
        assert_eq!(s.graph.raw_name(1), "Aé\"\\/\n\t");
        assert_eq!(s.graph.raw_name(2), "😀 é");
        assert_eq!(retained(&s), vec![35.0, 10.0, 20.0, 5.0]);
    }
}

#[test]
fn other_sections_are_checked_and_passed_over() {
    let extra = r#""samples":[1, 2, {"a": [true, null, -1.5e3, "x\"y", {}], "b": []}],"#;
    let text = diamond().replacen("\"nodes\":", &format!("{extra}\"nodes\":"), 1);
    assert_eq!(load(&text).unwrap().static_data().node_count, 4);
    let deep = format!("\"samples\":{}", "[".repeat(200));
    let cases = [
        (r#""samples":[1,},"#.to_owned(), "in \"samples\""),
        (
            r#""samples":[01],"#.to_owned(),
            "invalid value in \"samples\"",
        ),
        (r#""samples":{"a" 1},"#.to_owned(), "expected `:`"),
        (deep, "recursion limit"),
    ];
    let cases = cases.map(|(section, wanted)| {
        let text = diamond().replacen("\"nodes\":", &format!("{section}\"nodes\":"), 1);
        (text, wanted)
    });
    refused(&cases);
}

#[test]
fn what_json_forbids_is_refused_with_where() {
    let strings = r#""","A","B","C","x""#;
    let cases = [
        (
            snapshot("9,0,4294967296,0,0", "", strings),
            "does not fit 32 bits",
        ),
        (snapshot("9,0,01,0,0", "", strings), "leading zero"),
        (
            snapshot("9,0,1,0,0,", "", strings),
            "expected an unsigned integer",
        ),
        (snapshot("9,0,1,0,0", "", r#""","\ud800","B""#), "surrogate"),
        (
            snapshot("9,0,1,0,0", "", "\"\",\"a\tb\""),
            "control character",
        ),
        (snapshot("9,0,1,0,0", "", r#""","\q""#), "invalid escape"),
        (format!("{} x", diamond()), "trailing characters"),
        (
            diamond().replace("\"nodes\":", "\"nodes\" "),
            "expected `:`",
        ),
    ];
    refused(&cases);
    for (text, _) in cases {
        assert!(error(&text).contains(" at byte "));
    }
}

#[test]
fn retainers_indexed_a_range_at_a_time_are_the_same() {
    // Every node retained by the root and by each node before it: runs of many lengths.
    let nodes: Vec<String> = (0..9)
        .map(|i| format!("3,1,{},10,{}", 2 * i + 1, if i == 0 { 9 } else { 9 - i }))
        .collect();
    let mut edges = Vec::new();
    for from in 0..9 {
        let first_target = if from == 0 { 0 } else { from };
        for to in first_target..9 {
            edges.push(format!("2,1,{}", to * 5));
        }
    }
    let text = snapshot(&nodes.join(","), &edges.join(","), r#""","a""#);
    let s = load(&text).unwrap();
    let whole = super::graph::RetainerIndex::build(&s.graph, u32::MAX);
    for chunk in [1, 2, 3, 7] {
        let parts = super::graph::RetainerIndex::build(&s.graph, chunk);
        for node in 0..9 {
            assert_eq!(parts.edges_of(node), whole.edges_of(node), "chunk {chunk}");
        }
    }
    // Node 4's retainers: the root's edge to it, then nodes 1..4's, listed last first.
    let from: Vec<u32> = whole
        .edges_of(4)
        .iter()
        .map(|&e| s.graph.source(e as usize))
        .collect();
    assert_eq!(from, vec![4, 3, 2, 1, 0]);
}

#[test]
fn retained_sizes_past_32_bits_are_kept_whole() {
    let text = snapshot(
        "9,0,1,0,2, 3,1,3,4000000000,1, 3,1,5,4000000000,0",
        "2,2,5, 2,2,10, 2,2,10",
        r#""","A","x""#,
    );
    let s = load(&text).unwrap();
    assert_eq!(retained(&s), vec![8e9, 4e9, 4e9]);
    assert_eq!(s.static_data().total_size, 8e9);
}

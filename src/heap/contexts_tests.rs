//! The closure contexts' analysis on small snapshots written by hand: a live closure that
//! reads one of its context's two variables, snapshots without contexts or scopes, and
//! scope sections that are wrong.

use super::contexts::{analyse_within, Budget};
use super::Snapshot;

/// A node: type, name, self size, and its edges (type, name, target node's position).
type Node<'a> = (&'a str, &'a str, u32, Vec<(&'a str, &'a str, usize)>);

const NODE_TYPES: &str = r#"["hidden","array","string","object","code","closure","regexp","number","native","synthetic","concatenated string","sliced string"]"#;
const EDGE_TYPES: &str =
    r#"["context","element","property","internal","hidden","shortcut","weak"]"#;

/// The snapshot's text: nodes `[type, name, id, self_size, edge_count]`, ids 1, 3, 5, …;
/// `scope_meta` and `sections` are added to the meta and the top level as given.
fn snapshot(nodes: &[Node], scope_meta: &str, sections: &str) -> String {
    let mut strings: Vec<String> = Vec::new();
    let mut string = |s: &str| match strings.iter().position(|x| x == s) {
        Some(i) => i,
        None => {
            strings.push(s.to_owned());
            strings.len() - 1
        }
    };
    let kind = |list: &str, t: &str| {
        let names: Vec<String> = serde_json::from_str(list).unwrap();
        names.iter().position(|n| n == t).unwrap()
    };
    let (mut ns, mut es) = (Vec::new(), Vec::new());
    for (i, (t, name, size, edges)) in nodes.iter().enumerate() {
        let (t, name) = (kind(NODE_TYPES, t), string(name));
        ns.push(format!("{t},{name},{},{size},{}", i * 2 + 1, edges.len()));
        for (et, en, to) in edges {
            es.push(format!(
                "{},{},{}",
                kind(EDGE_TYPES, et),
                string(en),
                to * 5
            ));
        }
    }
    let strings = serde_json::to_string(&strings).unwrap();
    format!(
        r#"{{"snapshot":{{"meta":{{"node_fields":["type","name","id","self_size","edge_count"],
"node_types":[{NODE_TYPES},"string","number","number","number"],
"edge_fields":["type","name_or_index","to_node"],
"edge_types":[{EDGE_TYPES},"string_or_number","node"]{scope_meta}}},
"node_count":0,"edge_count":0}},
"nodes":[{}],"edges":[{}],"strings":{strings}{sections}}}"#,
        ns.join(","),
        es.join(",")
    )
}

fn int<'a>(value_at: usize) -> Node<'a> {
    ("number", "int", 0, vec![("internal", "value", value_at)])
}

/// A page's heap: a script whose function list holds a function scope (id 10, offsets
/// 10–90) inside the script's top scope; a context of that scope holding `big` (an array of
/// 400 bytes) and `used` (an object of 8); and a live closure of an inner function (scope id
/// 50) that holds the context.
fn page() -> Vec<Node<'static>> {
    vec![
        /* 0 */
        (
            "synthetic",
            "",
            0,
            vec![("element", "1", 1), ("element", "2", 5)],
        ),
        /* 1 */
        (
            "code",
            "system / Script / http://a.test/app.js",
            10,
            vec![("internal", "infos", 2)],
        ),
        /* 2 */ ("array", "(infos)", 4, vec![("internal", "0", 3)]),
        /* 3 */
        (
            "code",
            "system / ScopeInfo",
            20,
            vec![
                ("internal", "scope_id", 10),
                ("internal", "start_position", 11),
                ("internal", "end_position", 12),
                ("internal", "outer_scope_info", 4),
            ],
        ),
        /* 4 */
        (
            "code",
            "system / ScopeInfo",
            20,
            vec![("internal", "scope_id", 13)],
        ),
        /* 5 */
        (
            "closure",
            "inner",
            32,
            vec![("internal", "shared", 6), ("internal", "context", 7)],
        ),
        /* 6 */
        (
            "code",
            "system / SharedFunctionInfo",
            30,
            vec![("internal", "script", 1), ("internal", "scope_id", 14)],
        ),
        /* 7 */
        (
            "object",
            "system / Context",
            24,
            vec![
                ("internal", "scope_info", 3),
                ("context", "big", 8),
                ("context", "used", 9),
            ],
        ),
        /* 8 */ ("object", "Array", 400, vec![]),
        /* 9 */ ("object", "Used", 8, vec![]),
        /* 10 */ int(15),
        /* 11 */ int(15),
        /* 12 */ int(16),
        /* 13 */ int(17),
        /* 14 */ int(18),
        /* 15 */ ("string", "10", 0, vec![]),
        /* 16 */ ("string", "90", 0, vec![]),
        /* 17 */ ("string", "-2", 0, vec![]),
        /* 18 */ ("string", "50", 0, vec![]),
    ]
}

const SCOPE_META: &str = r#","scope_fields":["script_node_index","scope_id","depth","scope_context_vars_count","scope_uses_count"],"scope_context_var_fields":["name"],"scope_use_fields":["declaring_scope_id","slot_index"]"#;

/// The strings the scope sections name, `big` and `used`: the context's edges name them.
fn var_strings(nodes: &[Node]) -> (usize, usize) {
    let text = snapshot(nodes, "", "");
    let v: serde_json::Value =
        serde_json::from_str(&text[text.find("\"strings\":").unwrap() + 10..text.len() - 1])
            .unwrap();
    let at = |name: &str| {
        v.as_array()
            .unwrap()
            .iter()
            .position(|s| s == name)
            .unwrap()
    };
    (at("big"), at("used"))
}

fn sections() -> String {
    sections_for(&page())
}

/// The script's scopes: its top scope; the function scope 10 with `big` and `used`; inside
/// it the function 50, which reads `used` (slot 1 of scope 10).
fn sections_for(nodes: &[Node]) -> String {
    let (big, used) = var_strings(nodes);
    format!(
        r#","scopes":[5,-2,0,0,0, 5,10,1,2,0, 5,50,2,0,1],"scope_context_vars":[{big},{used}],"scope_uses":[10,1]"#
    )
}

fn load(text: &str) -> Snapshot {
    Snapshot::read(text.as_bytes(), None).unwrap()
}

#[test]
fn a_variable_no_live_closure_reads_is_dead_and_scored_by_what_it_retains() {
    let s = load(&snapshot(&page(), SCOPE_META, &sections()));
    let a = s.contexts().unwrap();
    assert!(a.scripts_without_scopes.is_empty());
    assert_eq!(a.scopes.len(), 1);
    let scope = &a.scopes[0];
    assert_eq!(
        (scope.scope_info_id, scope.script_id, scope.start, scope.end),
        (7, 3, 10.0, 90.0)
    );
    assert_eq!(scope.script_name, "http://a.test/app.js");
    assert_eq!(scope.scope_name, None);
    assert_eq!(scope.field_count, 2);
    let context = &scope.contexts[0];
    assert_eq!((context.id, context.dead_size), (15, 400.0));
    let dead: Vec<_> = context
        .dead_fields
        .iter()
        .map(|f| (f.name.as_str(), f.value_id, f.retained))
        .collect();
    assert_eq!(dead, [("big", 17, 400.0)]);
    assert_eq!(a.ranked(None, 0.0, None).len(), 1);
    assert!(a.ranked(None, 401.0, None).is_empty());
    assert!(a.ranked(Some(9.0), 0.0, None).is_empty());
}

#[test]
fn without_the_closure_every_variable_is_dead() {
    let mut nodes = page();
    nodes[5].3.remove(0);
    let s = load(&snapshot(&nodes, SCOPE_META, &sections_for(&nodes)));
    let context = &s.contexts().unwrap().scopes[0].contexts[0];
    let names: Vec<_> = context.dead_fields.iter().map(|f| &f.name[..]).collect();
    assert_eq!(names, ["big", "used"]);
    assert_eq!(context.dead_size, 408.0);
}

#[test]
fn no_contexts_and_no_scopes_are_empty_answers() {
    let mut nodes = page();
    nodes[7].1 = "Plain";
    let s = load(&snapshot(&nodes, SCOPE_META, &sections_for(&nodes)));
    let a = s.contexts().unwrap();
    assert!(a.scopes.is_empty() && a.scripts_without_scopes.is_empty());
    // Without embedded scopes the context's script is only counted.
    let s = load(&snapshot(&page(), "", ""));
    let a = s.contexts().unwrap();
    assert!(a.scopes.is_empty());
    let counted: Vec<_> = a
        .scripts_without_scopes
        .iter()
        .map(|w| (w.script_id, &w.script_name[..], w.context_count))
        .collect();
    assert_eq!(counted, [(3, "http://a.test/app.js", 1)]);
}

#[test]
fn cycles_of_contexts_and_scope_infos_end() {
    let mut nodes = page();
    // The context is its own previous; the outer scope info is its own outer, and not a
    // script's top scope.
    nodes[7].3.push(("internal", "previous", 7));
    nodes[4].3 = vec![("internal", "outer_scope_info", 4)];
    nodes[2].3.clear();
    let s = load(&snapshot(&nodes, SCOPE_META, &sections_for(&nodes)));
    let a = s.contexts().unwrap();
    assert!(a.scopes.is_empty() && a.scripts_without_scopes.is_empty());
}

#[test]
fn wrong_scope_sections_are_named_and_the_rest_still_answers() {
    let (big, used) = var_strings(&page());
    let cases = [
        (
            SCOPE_META.replace("\"depth\",", ""),
            sections(),
            "scope_fields has no \"depth\"",
        ),
        (
            SCOPE_META.to_owned(),
            sections().replace("5,50,2,0,1]", "5,50,2,0]"),
            "scopes array's length is not a multiple of its 5 fields",
        ),
        (
            SCOPE_META.to_owned(),
            sections().replace("[5,-2,0,0,0", "[6,-2,0,0,0"),
            "scope 0's script_node_index 6 is not a node",
        ),
        (
            SCOPE_META.to_owned(),
            sections().replace("5,50,2,0,1", "5,50,7,0,1"),
            "scope 2 has depth 7",
        ),
        (
            SCOPE_META.to_owned(),
            sections().replace(&format!("[{big},{used}]"), &format!("[{big},999]")),
            "context variable 1 names string 999",
        ),
        (
            SCOPE_META.to_owned(),
            sections().replace("5,10,1,2,0", "5,10,1,3,0"),
            "scope 1 has 3 context variables, but scope_context_vars has 2 left",
        ),
        (
            SCOPE_META.to_owned(),
            sections().replace("\"scope_uses\":[10,1]", "\"scope_uses\":[10,1,10,0]"),
            "the scopes have 1 uses, but scope_uses has 2",
        ),
        (
            SCOPE_META.to_owned(),
            sections().replace("5,50,2,0,1", "5,50,2,0,-1"),
            "scope 2 has -1 uses",
        ),
        (
            SCOPE_META.to_owned(),
            sections().replace("[10,1]", "[10,1.5]"),
            "the scope_uses array holds 1.5, not a whole number of 32 bits",
        ),
        (
            SCOPE_META.to_owned(),
            sections().replace("[10,1]", "[4294967296,1]"),
            "the scope_uses array holds 4294967296, not a whole number",
        ),
    ];
    for (meta, sections, wanted) in cases {
        let s = load(&snapshot(&page(), &meta, &sections));
        let e = s.contexts().err().unwrap_or_default();
        assert!(e.contains(wanted), "{wanted:?} not in {e:?}");
        assert_eq!(s.static_data().node_count, 19);
    }
    let text = snapshot(
        &page(),
        SCOPE_META,
        &sections().replace("[10,1]", "[10,\"1\"]"),
    );
    let e = Snapshot::read(text.as_bytes(), None).err();
    assert!(e.unwrap_or_default().contains("invalid type: string"));
}

#[test]
fn the_walks_stop_at_their_bounds() {
    let s = load(&snapshot(&page(), SCOPE_META, &sections()));
    // The closure's one context is one pair; reading `used` is one step up from scope 50.
    assert!(analyse_within(&s, Budget::of(2, 1)).is_ok());
    let e = analyse_within(&s, Budget::of(100, 0))
        .err()
        .unwrap_or_default();
    assert!(e.contains("hold too many contexts"), "{e}");
    let e = analyse_within(&s, Budget::of(1, 1))
        .err()
        .unwrap_or_default();
    assert!(e.contains("too many steps"), "{e}");
}

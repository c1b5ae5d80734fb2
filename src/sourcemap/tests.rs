//! The fixture of tests/fixtures/source_maps (a hand-made minified script and its map), and
//! hostile maps and scripts.

use super::{Frame, Original, Scopes, SourceMap};

const SCRIPT: &str = "function a(b){console.error(\"hello \"+b)}const c=d=>{a(d)};c(\"world\");\n//# sourceMappingURL=app.min.js.map\n";
const MAP: &str = "{\"version\": 3, \"file\": \"app.min.js\", \"sources\": [\"app.ts\"], \"sourcesContent\": [\"// A small program, minified into app.min.js.\\nfunction greet(name: string) {\\n  console.error('hello ' + name);\\n}\\n\\nconst start = (who: string) => {\\n  greet(who);\\n};\\n\\nstart('world');\\n\"], \"names\": [\"greet\", \"name\", \"start\", \"who\"], \"mappings\": \"AACA,SAASA,EAAMC,GACb,QAAQ,MAAM,SAAWA,EAC3B,CAEA,MAAMC,EAAS,GAAgB,CAC7BF,EAAMG,EACR,EAEAD,EAAM\"}";

fn frame(
    map: &SourceMap,
    scopes: Option<&Scopes>,
    column: u32,
    raw: &str,
) -> Option<(Option<String>, String, u32, u32)> {
    map.frame(scopes, (0, column), raw).map(
        |Frame {
             name,
             at:
                 Original {
                     source,
                     line,
                     column,
                 },
         }| (name, source.to_owned(), line, column),
    )
}

#[test]
fn frames_map_to_original_positions_and_names() {
    let map = SourceMap::parse(MAP.as_bytes()).expect("the fixture map parses");
    let scopes = Scopes::scan(SCRIPT).expect("the fixture script scans");
    // Where V8 reports the three frames of `console.error`'s stack.
    assert_eq!(
        frame(&map, Some(&scopes), 22, "a"),
        Some((Some("greet".into()), "app.ts".into(), 2, 10))
    );
    assert_eq!(
        frame(&map, Some(&scopes), 52, "c"),
        Some((Some(String::new()), "app.ts".into(), 6, 2))
    );
    assert_eq!(
        frame(&map, Some(&scopes), 58, ""),
        Some((None, "app.ts".into(), 9, 0))
    );
    // Without scopes, the browser's names stay.
    assert_eq!(
        frame(&map, None, 22, "a"),
        Some((Some("a".into()), "app.ts".into(), 2, 10))
    );
}

#[test]
fn source_root_is_joined() {
    let map = SourceMap::parse(br#"{"version":3,"sourceRoot":"/root","sources":["lib/x.ts"],"names":[],"mappings":"AAAA"}"#).expect("parses");
    assert_eq!(
        map.original(0, 5).map(|o| o.source.to_owned()),
        Some("/root/lib/x.ts".into())
    );
}

#[test]
fn hostile_maps_are_refused_whole() {
    let bad: &[&[u8]] = &[
        b"not json",
        br#"{"version":3,"sources":["x.ts"],"names":[],"mappings":"!!!!"}"#,
        // A number longer than 32 bits.
        br#"{"version":3,"sources":["x.ts"],"names":[],"mappings":"+/+/+/+/+/+/+/+/A"}"#,
        // An unknown source, a line before the first, an unknown name.
        br#"{"version":3,"sources":["x.ts"],"names":[],"mappings":"AOAA"}"#,
        br#"{"version":3,"sources":["x.ts"],"names":[],"mappings":"AAFA"}"#,
        br#"{"version":3,"sources":["x.ts"],"names":[],"mappings":"AAAAA"}"#,
        // Six fields, a negative column, another version, index maps.
        br#"{"version":3,"sources":["x.ts"],"names":["n"],"mappings":"AAAAAA"}"#,
        br#"{"version":3,"sources":["x.ts"],"names":[],"mappings":"D"}"#,
        br#"{"version":2,"sources":["x.ts"],"names":[],"mappings":"AAAA"}"#,
        br#"{"version":3,"sections":[]}"#,
    ];
    for text in bad {
        assert!(
            SourceMap::parse(text).is_none(),
            "{}",
            String::from_utf8_lossy(text)
        );
    }
    let mut huge = br#"{"version":3,"sources":["x.ts"],"names":[],"mappings":""#.to_vec();
    huge.resize(super::MAX_MAP_BYTES + 1, b'A');
    huge.extend_from_slice(br#""}"#);
    assert!(SourceMap::parse(&huge).is_none());
}

#[test]
fn a_position_before_any_mapping_has_no_original() {
    let map =
        SourceMap::parse(br#"{"version":3,"sources":["x.ts"],"names":[],"mappings":";AAAA"}"#)
            .expect("parses");
    assert_eq!(map.original(0, 3), None);
    assert!(map.original(1, 0).is_some());
}

/// Names each range of `script` by a map that maps every function's first name position to
/// `names[i]`: here, the generated names (no map entry), to check what the scanner finds.
fn scanned_names(script: &str, columns: &[u32]) -> Vec<Option<String>> {
    // One source, every column mapped to itself, no names: a range is named as generated.
    let mut mappings = String::from("AAAA");
    for _ in 1..script.len() {
        mappings.push_str(",CAAC");
    }
    let map = SourceMap::parse(
        format!(r#"{{"version":3,"sources":["s.js"],"names":[],"mappings":"{mappings}"}}"#)
            .as_bytes(),
    )
    .expect("parses");
    let scopes = Scopes::scan(script).expect("scans");
    columns
        .iter()
        .map(|c| scopes.function_name(&map, (0, *c)))
        .collect()
}

#[test]
fn the_scanner_finds_functions_methods_and_arrows() {
    let script = r#"var o={m(){x()},k:function(){y()},n:function q(){z()}};class C{static s(){w()} #p(){v()}}f(a=>g(a),`${()=>h()}`,/[/}]/.test(s)?1:2);"#;
    let at =
        |needle: &str| u32::try_from(script.find(needle).expect("in the script")).expect("small");
    let names = scanned_names(
        script,
        &[
            at("x()"),
            at("y()"),
            at("z()"),
            at("w()"),
            at("v()"),
            at("g(a)"),
            at("h()"),
            at("test"),
            0,
        ],
    );
    let expected = [
        Some("m"),
        Some("k"),
        Some("n"),
        Some("s"),
        Some("#p"),
        Some(""),
        Some(""),
        None,
        None,
    ];
    assert_eq!(names, expected.map(|n| n.map(str::to_owned)).to_vec());
}

#[test]
fn unbalanced_scripts_give_no_scopes() {
    for script in [
        "function a(){",
        "a())",
        "`${",
        "'open",
        "/* open",
        "x=/open",
    ] {
        assert!(Scopes::scan(script).is_none(), "{script}");
    }
}

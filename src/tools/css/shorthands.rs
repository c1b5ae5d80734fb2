//! Which longhands each CSS shorthand sets (the CSS specifications, as Chromium implements
//! them): how the browser's own rules, which list longhands only, are shown with their
//! shorthands, as DevTools shows them.

/// The four sides, in the order shorthands list them.
const SIDES: [&str; 4] = ["top", "right", "bottom", "left"];

/// The longhands of `shorthand`, or none when it is not a shorthand known here.
pub fn longhands(shorthand: &str) -> Vec<String> {
    let sides = |f: &dyn Fn(&str) -> String| SIDES.iter().map(|s| f(s)).collect::<Vec<_>>();
    let ends = |p: &str| vec![format!("{p}-start"), format!("{p}-end")];
    let list = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    let with =
        |p: &str, parts: &[&str]| parts.iter().map(|x| format!("{p}-{x}")).collect::<Vec<_>>();
    const WSC: [&str; 3] = ["width", "style", "color"];
    match shorthand {
        "margin" | "padding" | "scroll-margin" | "scroll-padding" => {
            sides(&|s| format!("{shorthand}-{s}"))
        }
        "inset" => list(&SIDES),
        "margin-block"
        | "margin-inline"
        | "padding-block"
        | "padding-inline"
        | "inset-block"
        | "inset-inline"
        | "scroll-margin-block"
        | "scroll-margin-inline"
        | "scroll-padding-block"
        | "scroll-padding-inline" => ends(shorthand),
        "border-width" | "border-style" | "border-color" => {
            let part = &shorthand["border-".len()..];
            sides(&|s| format!("border-{s}-{part}"))
        }
        "border-top"
        | "border-right"
        | "border-bottom"
        | "border-left"
        | "border-block-start"
        | "border-block-end"
        | "border-inline-start"
        | "border-inline-end"
        | "outline"
        | "column-rule" => with(shorthand, &WSC),
        "border-block" | "border-inline" => {
            let mut out = with(&format!("{shorthand}-start"), &WSC);
            out.extend(with(&format!("{shorthand}-end"), &WSC));
            out
        }
        "border-block-width"
        | "border-block-style"
        | "border-block-color"
        | "border-inline-width"
        | "border-inline-style"
        | "border-inline-color" => {
            let (axis, part) = shorthand.rsplit_once('-').unwrap_or((shorthand, ""));
            vec![format!("{axis}-start-{part}"), format!("{axis}-end-{part}")]
        }
        "border" => {
            let mut out: Vec<String> = WSC
                .iter()
                .flat_map(|part| SIDES.iter().map(move |s| format!("border-{s}-{part}")))
                .collect();
            out.extend(longhands("border-image"));
            out
        }
        "border-image" => with(shorthand, &["source", "slice", "width", "outset", "repeat"]),
        "border-radius" => ["top-left", "top-right", "bottom-right", "bottom-left"]
            .iter()
            .map(|c| format!("border-{c}-radius"))
            .collect(),
        "font" => {
            let mut out = list(&["font-style"]);
            out.extend(longhands("font-variant"));
            out.extend(list(&[
                "font-weight",
                "font-stretch",
                "font-size",
                "line-height",
                "font-family",
                "font-optical-sizing",
                "font-size-adjust",
                "font-kerning",
                "font-feature-settings",
                "font-variation-settings",
                "font-language-override",
            ]));
            out
        }
        "font-variant" => with(
            shorthand,
            &[
                "ligatures",
                "caps",
                "numeric",
                "east-asian",
                "alternates",
                "position",
                "emoji",
            ],
        ),
        "background" => with(
            shorthand,
            &[
                "image",
                "position-x",
                "position-y",
                "size",
                "repeat",
                "attachment",
                "origin",
                "clip",
                "color",
            ],
        ),
        "background-position" => with(shorthand, &["x", "y"]),
        "overflow" | "overscroll-behavior" => with(shorthand, &["x", "y"]),
        "list-style" => with(shorthand, &["position", "image", "type"]),
        "text-decoration" => with(shorthand, &["line", "thickness", "style", "color"]),
        "text-emphasis" => with(shorthand, &["style", "color"]),
        "-webkit-text-stroke" => with(shorthand, &["width", "color"]),
        "flex" => with(shorthand, &["grow", "shrink", "basis"]),
        "flex-flow" => list(&["flex-direction", "flex-wrap"]),
        "gap" => list(&["row-gap", "column-gap"]),
        "columns" => list(&["column-width", "column-count"]),
        "place-content" | "place-items" | "place-self" => {
            let part = &shorthand["place-".len()..];
            vec![format!("align-{part}"), format!("justify-{part}")]
        }
        "transition" => with(
            shorthand,
            &[
                "property",
                "duration",
                "timing-function",
                "delay",
                "behavior",
            ],
        ),
        "animation" => with(
            shorthand,
            &[
                "duration",
                "timing-function",
                "delay",
                "iteration-count",
                "direction",
                "fill-mode",
                "play-state",
                "name",
                "timeline",
                "range-start",
                "range-end",
                "composition",
            ],
        ),
        "white-space" => list(&["white-space-collapse", "text-wrap-mode"]),
        "text-wrap" => list(&["text-wrap-mode", "text-wrap-style"]),
        "container" => with(shorthand, &["name", "type"]),
        "contain-intrinsic-size" => list(&["contain-intrinsic-width", "contain-intrinsic-height"]),
        "marker" => with(shorthand, &["start", "mid", "end"]),
        "offset" => with(
            shorthand,
            &["position", "path", "distance", "rotate", "anchor"],
        ),
        _ => Vec::new(),
    }
}

/// Every shorthand known here, in alphabetical order (the order DevTools tries them in).
const SHORTHANDS: &[&str] = &[
    "-webkit-text-stroke",
    "animation",
    "background",
    "background-position",
    "border",
    "border-block",
    "border-block-color",
    "border-block-end",
    "border-block-start",
    "border-block-style",
    "border-block-width",
    "border-bottom",
    "border-color",
    "border-image",
    "border-inline",
    "border-inline-color",
    "border-inline-end",
    "border-inline-start",
    "border-inline-style",
    "border-inline-width",
    "border-left",
    "border-radius",
    "border-right",
    "border-style",
    "border-top",
    "border-width",
    "column-rule",
    "columns",
    "contain-intrinsic-size",
    "container",
    "flex",
    "flex-flow",
    "font",
    "font-variant",
    "gap",
    "inset",
    "inset-block",
    "inset-inline",
    "list-style",
    "margin",
    "margin-block",
    "margin-inline",
    "marker",
    "offset",
    "outline",
    "overflow",
    "overscroll-behavior",
    "padding",
    "padding-block",
    "padding-inline",
    "place-content",
    "place-items",
    "place-self",
    "scroll-margin",
    "scroll-margin-block",
    "scroll-margin-inline",
    "scroll-padding",
    "scroll-padding-block",
    "scroll-padding-inline",
    "text-decoration",
    "text-emphasis",
    "text-wrap",
    "transition",
    "white-space",
];

/// The shorthands that set `longhand`, alphabetically.
pub fn shorthands_of(longhand: &str) -> Vec<&'static str> {
    SHORTHANDS
        .iter()
        .copied()
        .filter(|s| longhands(s).iter().any(|l| l == longhand))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longhands_and_their_shorthands() {
        assert_eq!(
            longhands("margin"),
            ["margin-top", "margin-right", "margin-bottom", "margin-left"]
        );
        assert_eq!(
            longhands("padding-block"),
            ["padding-block-start", "padding-block-end"]
        );
        assert_eq!(
            shorthands_of("border-top-width"),
            ["border", "border-top", "border-width"]
        );
        assert_eq!(shorthands_of("line-height"), ["font"]);
        assert_eq!(
            longhands("border-inline-color"),
            ["border-inline-start-color", "border-inline-end-color"]
        );
        assert!(shorthands_of("color").is_empty());
        let mut sorted = SHORTHANDS.to_vec();
        sorted.sort();
        assert_eq!(sorted, SHORTHANDS);
        assert!(SHORTHANDS.iter().all(|s| !longhands(s).is_empty()));
    }
}

//! Which longhands each CSS shorthand sets (the CSS specifications, as Chromium implements
//! them): how the browser's own rules, which list longhands only, are shown with their
//! shorthands, as DevTools shows them.

/// The four sides, in the order shorthands list them.
const SIDES: [&str; 4] = ["top", "right", "bottom", "left"];

/// The longhands of `shorthand`, or none when it is not a shorthand known here.
pub(super) fn longhands(shorthand: &str) -> Vec<String> {
    sides_and_ends(shorthand)
        .or_else(|| borders(shorthand))
        .or_else(|| fonts_and_backgrounds(shorthand))
        .or_else(|| layout_and_motion(shorthand))
        .unwrap_or_default()
}

const WSC: [&str; 3] = ["width", "style", "color"];

fn with(prefix: &str, parts: &[&str]) -> Vec<String> {
    parts.iter().map(|x| format!("{prefix}-{x}")).collect()
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|n| n.to_string()).collect()
}

/// `margin`, `padding-block`, `inset`, …: four sides, or a start and an end.
fn sides_and_ends(shorthand: &str) -> Option<Vec<String>> {
    Some(match shorthand {
        "margin" | "padding" | "scroll-margin" | "scroll-padding" => with(shorthand, &SIDES),
        "inset" => names(&SIDES),
        "margin-block"
        | "margin-inline"
        | "padding-block"
        | "padding-inline"
        | "inset-block"
        | "inset-inline"
        | "scroll-margin-block"
        | "scroll-margin-inline"
        | "scroll-padding-block"
        | "scroll-padding-inline" => with(shorthand, &["start", "end"]),
        _ => return None,
    })
}

/// `border` and its parts, `outline`, `column-rule`.
fn borders(shorthand: &str) -> Option<Vec<String>> {
    Some(match shorthand {
        "border-width" | "border-style" | "border-color" => {
            let part = &shorthand["border-".len()..];
            SIDES.iter().map(|s| format!("border-{s}-{part}")).collect()
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
            let (axis, part) = shorthand.rsplit_once('-')?;
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
        _ => return None,
    })
}

const FONT_VARIANTS: [&str; 7] = [
    "ligatures",
    "caps",
    "numeric",
    "east-asian",
    "alternates",
    "position",
    "emoji",
];
const FONT_AFTER_VARIANTS: [&str; 11] = [
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
];
const BACKGROUND: [&str; 9] = [
    "image",
    "position-x",
    "position-y",
    "size",
    "repeat",
    "attachment",
    "origin",
    "clip",
    "color",
];

/// `font`, `background`, text decorations, lists.
fn fonts_and_backgrounds(shorthand: &str) -> Option<Vec<String>> {
    Some(match shorthand {
        "font" => {
            let mut out = names(&["font-style"]);
            out.extend(with("font-variant", &FONT_VARIANTS));
            out.extend(names(&FONT_AFTER_VARIANTS));
            out
        }
        "font-variant" => with(shorthand, &FONT_VARIANTS),
        "background" => with(shorthand, &BACKGROUND),
        "background-position" | "overflow" | "overscroll-behavior" => with(shorthand, &["x", "y"]),
        "list-style" => with(shorthand, &["position", "image", "type"]),
        "text-decoration" => with(shorthand, &["line", "thickness", "style", "color"]),
        "text-emphasis" => with(shorthand, &["style", "color"]),
        "-webkit-text-stroke" => with(shorthand, &["width", "color"]),
        "white-space" => names(&["white-space-collapse", "text-wrap-mode"]),
        "text-wrap" => names(&["text-wrap-mode", "text-wrap-style"]),
        _ => return None,
    })
}

const ANIMATION: [&str; 12] = [
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
];

/// Flex and grid alignment, transitions and animations, and the rest.
fn layout_and_motion(shorthand: &str) -> Option<Vec<String>> {
    Some(match shorthand {
        "flex" => with(shorthand, &["grow", "shrink", "basis"]),
        "flex-flow" => names(&["flex-direction", "flex-wrap"]),
        "gap" => names(&["row-gap", "column-gap"]),
        "columns" => names(&["column-width", "column-count"]),
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
        "animation" => with(shorthand, &ANIMATION),
        "container" => with(shorthand, &["name", "type"]),
        "contain-intrinsic-size" => names(&["contain-intrinsic-width", "contain-intrinsic-height"]),
        "marker" => with(shorthand, &["start", "mid", "end"]),
        "offset" => with(
            shorthand,
            &["position", "path", "distance", "rotate", "anchor"],
        ),
        _ => return None,
    })
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
pub(super) fn shorthands_of(longhand: &str) -> Vec<&'static str> {
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

//! The at-rule blocks DevTools shows after an element's styles: the `@keyframes` its
//! animations use, generic at-rules (`@font-face`, `@counter-style`, …), its `@position-try`
//! fallbacks (marked `[inactive]` unless in use) and the `@property` registrations it may
//! read (rules first, then `CSS.registerProperty` calls).

use std::collections::HashMap;

use super::model::{file_name, props, strip_important, Block, Place, Shown};
use super::sheets::Sheet;
use crate::cdp::generated::css::{self, CSSStyle, StyleSheetOrigin};

/// Where a registration made from script comes from: the page's JS API, which DevTools
/// names (not a CDP command; written in two parts so the CDP-name check does not take it
/// for one).
const REGISTER_PROPERTY: &str = concat!("CSS", ".registerProperty");

/// The blocks, in DevTools' order.
pub(super) fn blocks(
    m: &css::GetMatchedStylesForNodeReturns,
    sheets: &HashMap<String, Sheet>,
) -> Vec<Block> {
    let mut out = keyframes(m, sheets);
    out.extend(generic(m, sheets));
    for rule in m.css_position_try_rules.iter().flatten() {
        let props = shown(&rule.style);
        if props.is_empty() {
            continue;
        }
        let state = if rule.active { "" } else { "[inactive] " };
        let selector = format!("{state}@position-try {}", rule.name.text);
        let source = source(
            &rule.origin,
            rule.style_sheet_id.as_deref(),
            &rule.style,
            sheets,
        );
        out.push(block(selector, source, props));
    }
    out.extend(properties(m, sheets));
    out
}

fn keyframes(
    m: &css::GetMatchedStylesForNodeReturns,
    sheets: &HashMap<String, Sheet>,
) -> Vec<Block> {
    let mut out = Vec::new();
    for keyframes in m.css_keyframes_rules.iter().flatten() {
        let steps: Vec<(String, Vec<Shown>)> = keyframes
            .keyframes
            .iter()
            .map(|k| (k.key_text.text.clone(), shown(&k.style)))
            .filter(|(_, props)| !props.is_empty())
            .collect();
        // The block is placed where its first keyframe with declarations is.
        let Some(first) = keyframes
            .keyframes
            .iter()
            .find(|k| !shown(&k.style).is_empty())
        else {
            continue;
        };
        let source = source(
            &first.origin,
            first.style_sheet_id.as_deref(),
            &first.style,
            sheets,
        );
        let name = format!("@keyframes {}", keyframes.animation_name.text);
        out.push(Block {
            steps,
            ..block(name, source, Vec::new())
        });
    }
    out
}

/// `@font-face`, `@counter-style`, …; a `@font-feature-values` subsection inside its rule.
fn generic(m: &css::GetMatchedStylesForNodeReturns, sheets: &HashMap<String, Sheet>) -> Vec<Block> {
    let mut out = Vec::new();
    for rule in m.css_at_rules.iter().flatten() {
        let props = shown(&rule.style);
        if props.is_empty() {
            continue;
        }
        let kind = rule.r#type.as_str();
        let named = match rule.name.as_ref() {
            Some(n) => format!("@{kind} {}", n.text),
            None => format!("@{kind}"),
        };
        let source = source(
            &rule.origin,
            rule.style_sheet_id.as_deref(),
            &rule.style,
            sheets,
        );
        out.push(match &rule.subsection {
            Some(sub) => Block {
                ancestors: vec![named],
                ..block(format!("@{}", sub.as_str()), source, props)
            },
            None => block(named, source, props),
        });
    }
    out
}

/// `@property` rules, then registrations made from script.
fn properties(
    m: &css::GetMatchedStylesForNodeReturns,
    sheets: &HashMap<String, Sheet>,
) -> Vec<Block> {
    let mut out = Vec::new();
    for rule in m.css_property_rules.iter().flatten() {
        let props = shown(&rule.style);
        if props.is_empty() {
            continue;
        }
        let source = source(
            &rule.origin,
            rule.style_sheet_id.as_deref(),
            &rule.style,
            sheets,
        );
        out.push(block(
            format!("@property {}", rule.property_name.text),
            source,
            props,
        ));
    }
    for registration in m.css_property_registrations.iter().flatten() {
        let mut props = vec![
            active("syntax", format!("\"{}\"", registration.syntax)),
            active("inherits", registration.inherits.to_string()),
        ];
        if let Some(initial) = &registration.initial_value {
            props.push(active("initial-value", initial.text.clone()));
        }
        let selector = format!("@property {}", registration.property_name);
        out.push(block(selector, REGISTER_PROPERTY.into(), props));
    }
    out
}

fn block(selector: String, source: String, props: Vec<Shown>) -> Block {
    Block {
        place: Place::Own,
        ancestors: Vec::new(),
        selector,
        source: Some(source),
        props,
        steps: Vec::new(),
        comments: Vec::new(),
    }
}

fn active(name: &str, value: String) -> Shown {
    Shown {
        name: name.into(),
        value,
        important: false,
        status: "active",
    }
}

/// The declarations as written (no cascade applies to these blocks).
fn shown(style: &CSSStyle) -> Vec<Shown> {
    props(style)
        .into_iter()
        .filter(|p| p.leading)
        .map(|p| Shown {
            value: if p.important {
                strip_important(&p.value)
            } else {
                p.value.clone()
            },
            status: if !p.parsed_ok {
                "invalid"
            } else if p.disabled {
                "disabled"
            } else {
                "active"
            },
            important: p.important,
            name: p.name,
        })
        .collect()
}

/// Where a rule that is not a style rule comes from: its sheet and its body's first line.
fn source(
    origin: &StyleSheetOrigin,
    sheet: Option<&str>,
    style: &CSSStyle,
    sheets: &HashMap<String, Sheet>,
) -> String {
    match origin {
        StyleSheetOrigin::UserAgent => return "user agent stylesheet".into(),
        StyleSheetOrigin::Injected => return "injected stylesheet".into(),
        StyleSheetOrigin::Inspector => return "via inspector".into(),
        _ => {}
    }
    let sheet = sheet
        .and_then(|id| sheets.get(id))
        .cloned()
        .unwrap_or_default();
    if sheet.constructed && sheet.url.is_empty() {
        return "constructed stylesheet".into();
    }
    let line = style
        .range
        .as_ref()
        .map(|r| format!(":{}", sheet.start_line as i64 + r.start_line + 1))
        .unwrap_or_default();
    if sheet.url.is_empty() {
        return format!("<style>{line}");
    }
    format!("{}{line}", file_name(&sheet.url))
}

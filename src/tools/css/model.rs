//! From the browser's matched styles to the blocks the answer shows, in DevTools' order:
//! the element's own styles (inline, rules from the most precedent, attribute styles before
//! the browser's own rules), then each ancestor's inherited ones, then pseudo-elements.

use std::collections::HashMap;

use super::cascade::{self, Decl, Style};
use super::sheets::Sheet;
use super::shorthands;
use crate::cdp::generated::css::{self, CSSRule, CSSRuleType, CSSStyle, StyleSheetOrigin};

/// An element: the element itself, or an ancestor styles are inherited from.
#[derive(Debug, Clone, Default)]
pub(super) struct Element {
    pub(super) selector: String,
    pub(super) uid: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Place {
    Own,
    Inherited {
        selector: String,
        uid: Option<String>,
    },
    Pseudo(String),
}

/// One declaration as shown.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Shown {
    pub(super) name: String,
    pub(super) value: String,
    pub(super) important: bool,
    /// "active", "overloaded", "invalid" or "disabled".
    pub(super) status: &'static str,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Block {
    pub(super) place: Place,
    /// `@media …`, `@layer …`: outermost first.
    pub(super) ancestors: Vec<String>,
    pub(super) selector: String,
    pub(super) source: Option<String>,
    pub(super) props: Vec<Shown>,
    /// `@keyframes`: each keyframe's selector and declarations.
    pub(super) steps: Vec<(String, Vec<Shown>)>,
    /// Comments above ancestor headers, by the header's index (which element a container is).
    pub(super) comments: Vec<(usize, String)>,
}

/// One style before the cascade: where it shows and its declarations, with which of them
/// are shown (the others are longhands the browser expanded).
struct Entry<'a> {
    place: Place,
    rule: Option<&'a CSSRule>,
    selector: String,
    style: &'a CSSStyle,
    level: usize,
}

/// Builds the blocks; `ancestors[i]` is the element the `i`-th inherited entry comes from.
pub(super) fn blocks(
    m: &mut css::GetMatchedStylesForNodeReturns,
    element_tag: &str,
    ancestors: &[Element],
    sheets: &HashMap<String, Sheet>,
) -> Vec<Block> {
    if let Some(rules) = m.matched_css_rules.as_mut() {
        clean_user_agent(rules);
    }
    for inherited in m.inherited.iter_mut().flatten() {
        clean_user_agent(&mut inherited.matched_css_rules);
    }
    let m = &*m;
    let mut entries = own_entries(m, element_tag);
    for (i, inherited) in m.inherited.iter().flatten().enumerate() {
        let Some(from) = ancestors.get(i) else { break };
        let place = Place::Inherited {
            selector: from.selector.clone(),
            uid: from.uid.clone(),
        };
        if let Some(style) = inherited.inline_style.as_ref().filter(|s| has_inherited(s)) {
            entries.push(entry(
                place.clone(),
                None,
                "element.style".into(),
                style,
                i + 1,
            ));
        }
        for matched in inherited.matched_css_rules.iter().rev() {
            let r = &matched.rule;
            // A rule that matched a nearer element too is shown there only (custom properties
            // aside, which each element may set anew).
            let shown_already = entries.iter().any(|e| same_style(e.style, &r.style));
            if !has_inherited(&r.style) || (shown_already && !has_custom(&r.style)) {
                continue;
            }
            entries.push(entry(
                place.clone(),
                Some(r),
                r.selector_list.text.clone(),
                &r.style,
                i + 1,
            ));
        }
    }
    let mut out = shown(&entries, sheets);
    for pseudo in m.pseudo_elements.iter().flatten() {
        let name = match &pseudo.pseudo_identifier {
            Some(id) => format!("::{}({id})", pseudo.pseudo_type.as_str()),
            None => format!("::{}", pseudo.pseudo_type.as_str()),
        };
        let entries: Vec<Entry> = pseudo
            .matches
            .iter()
            .rev()
            .map(|r| {
                entry(
                    Place::Pseudo(name.clone()),
                    Some(&r.rule),
                    r.rule.selector_list.text.clone(),
                    &r.rule.style,
                    0,
                )
            })
            .collect();
        out.extend(shown(&entries, sheets));
    }
    out
}

fn has_inherited(style: &CSSStyle) -> bool {
    style
        .css_properties
        .iter()
        .any(|p| cascade::is_inherited(&canonical(&p.name)))
}

fn has_custom(style: &CSSStyle) -> bool {
    style
        .css_properties
        .iter()
        .any(|p| p.name.starts_with("--"))
}

/// The same declarations of the same sheet (a rule that matched two elements).
fn same_style(a: &CSSStyle, b: &CSSStyle) -> bool {
    let range = |s: &CSSStyle| {
        s.range
            .as_ref()
            .map(|r| (r.start_line, r.start_column, r.end_line, r.end_column))
    };
    a.style_sheet_id.is_some()
        && a.style_sheet_id == b.style_sheet_id
        && range(a).is_some()
        && range(a) == range(b)
}

/// As DevTools does with the browser's own rules: only the selectors that matched are named,
/// and consecutive rules with the same selectors (and media) are shown as one.
fn clean_user_agent(rules: &mut Vec<css::RuleMatch>) {
    for m in rules.iter_mut() {
        if m.rule.origin != StyleSheetOrigin::UserAgent || m.matching_selectors.is_empty() {
            continue;
        }
        let list = &mut m.rule.selector_list;
        let matching = &m.matching_selectors;
        let kept: Vec<css::Value> = list
            .selectors
            .iter()
            .enumerate()
            .filter(|(i, _)| matching.contains(&(*i as i64)))
            .map(|(_, s)| s.clone())
            .collect();
        list.text = kept
            .iter()
            .map(|s| s.text.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        list.selectors = kept;
    }
    let media = |r: &CSSRule| {
        r.media
            .as_ref()
            .map(|m| m.iter().map(|x| x.text.clone()).collect::<Vec<_>>())
    };
    let mut out: Vec<css::RuleMatch> = Vec::with_capacity(rules.len());
    for m in rules.drain(..) {
        match out.last_mut() {
            Some(last)
                if m.rule.origin == StyleSheetOrigin::UserAgent
                    && last.rule.origin == StyleSheetOrigin::UserAgent
                    && m.rule.selector_list.text == last.rule.selector_list.text
                    && media(&m.rule) == media(&last.rule) =>
            {
                merge(&mut last.rule.style, m.rule.style)
            }
            _ => out.push(m),
        }
    }
    *rules = out;
}

/// Merges the browser-rule declarations `from` into `to`: a name keeps its first place and
/// takes the last value (and loses its flags, as in DevTools).
fn merge(to: &mut CSSStyle, from: CSSStyle) {
    for s in from.shorthand_entries {
        match to.shorthand_entries.iter_mut().find(|t| t.name == s.name) {
            Some(t) => t.value = s.value,
            None => to.shorthand_entries.push(s),
        }
    }
    for p in from.css_properties {
        match to.css_properties.iter_mut().find(|t| t.name == p.name) {
            Some(t) => t.value = p.value,
            None => to.css_properties.push(p),
        }
    }
    for p in to.css_properties.iter_mut() {
        let (name, value) = (std::mem::take(&mut p.name), std::mem::take(&mut p.value));
        *p = css::CSSProperty {
            name,
            value,
            ..Default::default()
        };
    }
}

fn entry<'a>(
    place: Place,
    rule: Option<&'a CSSRule>,
    selector: String,
    style: &'a CSSStyle,
    level: usize,
) -> Entry<'a> {
    Entry {
        place,
        rule,
        selector,
        style,
        level,
    }
}

/// The element's own styles, the most precedent first.
fn own_entries<'a>(m: &'a css::GetMatchedStylesForNodeReturns, tag: &str) -> Vec<Entry<'a>> {
    let mut out = Vec::new();
    if let Some(style) = &m.inline_style {
        out.push(entry(Place::Own, None, "element.style".into(), style, 0));
    }
    let attributes = m.attributes_style.as_ref().map(|style| {
        entry(
            Place::Own,
            None,
            format!("{tag}[attributes style]"),
            style,
            0,
        )
    });
    let mut attributes = attributes;
    for matched in m.matched_css_rules.iter().flatten().rev() {
        let r = &matched.rule;
        let browsers = matches!(
            r.origin,
            StyleSheetOrigin::UserAgent | StyleSheetOrigin::Injected
        );
        if browsers {
            out.extend(attributes.take());
        }
        out.push(entry(
            Place::Own,
            Some(r),
            r.selector_list.text.clone(),
            &r.style,
            0,
        ));
    }
    out.extend(attributes);
    out
}

/// The cascade over `entries` (one element's styles and its ancestors', or one pseudo
/// element's), and the blocks that have something to show.
fn shown(entries: &[Entry], sheets: &HashMap<String, Sheet>) -> Vec<Block> {
    let props: Vec<Vec<Prop>> = entries.iter().map(|e| props(e.style)).collect();
    let styles: Vec<Style> = entries
        .iter()
        .zip(&props)
        .map(|(e, ps)| Style {
            level: e.level,
            decls: ps.iter().map(Prop::decl).collect(),
        })
        .collect();
    let lost = cascade::overloaded(&styles);
    let mut out = Vec::new();
    for ((e, ps), lost) in entries.iter().zip(&props).zip(lost) {
        let mut shown = Vec::new();
        for (p, lost) in ps.iter().zip(lost) {
            if !p.leading || (e.level > 0 && !cascade::is_inherited(&canonical(&p.name))) {
                continue;
            }
            let status = if !p.parsed_ok {
                "invalid"
            } else if p.disabled {
                "disabled"
            } else if lost {
                "overloaded"
            } else {
                "active"
            };
            shown.push(Shown {
                name: p.name.clone(),
                value: if p.important {
                    strip_important(&p.value)
                } else {
                    p.value.clone()
                },
                important: p.important,
                status,
            });
        }
        if shown.is_empty() {
            continue;
        }
        out.push(Block {
            place: e.place.clone(),
            ancestors: e.rule.map(at_rules).unwrap_or_default(),
            selector: e.selector.clone(),
            source: e.rule.map(|r| source(r, sheets)),
            props: shown,
            steps: Vec::new(),
            comments: Vec::new(),
        });
    }
    out
}

/// A declaration as DevTools holds it.
pub(super) struct Prop {
    pub(super) name: String,
    pub(super) value: String,
    pub(super) important: bool,
    pub(super) parsed_ok: bool,
    pub(super) disabled: bool,
    /// Written in the style (not a longhand the browser expanded a shorthand into).
    pub(super) leading: bool,
    /// An expanded longhand of a written shorthand: the shorthand stands for it.
    implied: bool,
    longhands: Vec<String>,
}

impl Prop {
    fn decl(&self) -> Decl {
        Decl {
            name: canonical(&self.name),
            important: self.important,
            usable: self.parsed_ok && !self.disabled,
            implied: self.implied,
            longhands: self.longhands.iter().map(|l| canonical(l)).collect(),
        }
    }
}

/// A style's declarations. With source ranges: those written, and the expanded longhands
/// (not shown). The browser's own styles have no ranges and list longhands only: a
/// shorthand they name (with a value) is added after them and shown in their place.
pub(super) fn props(style: &CSSStyle) -> Vec<Prop> {
    let ranged = style.range.is_some();
    let mut out: Vec<Prop> = style
        .css_properties
        .iter()
        .map(|p| Prop {
            name: p.name.clone(),
            value: p.value.clone(),
            important: p.important == Some(true),
            parsed_ok: p.parsed_ok != Some(false),
            disabled: p.disabled == Some(true),
            leading: !ranged || p.range.is_some(),
            implied: ranged && p.range.is_none(),
            longhands: p
                .longhand_properties
                .iter()
                .flatten()
                .map(|l| l.name.clone())
                .collect(),
        })
        .collect();
    if ranged || style.shorthand_entries.is_empty() {
        return out;
    }
    let value_of = |name: &str| {
        style
            .shorthand_entries
            .iter()
            .find(|e| e.name == name && !e.value.is_empty())
    };
    let mut named: Vec<String> = out.iter().map(|p| p.name.clone()).collect();
    let mut added = Vec::new();
    for p in out.iter_mut() {
        let shorthands = shorthands::shorthands_of(&p.name);
        p.leading = !shorthands.iter().any(|s| value_of(s).is_some());
        for s in shorthands {
            let Some(entry) = value_of(s).filter(|_| !named.iter().any(|n| n == s)) else {
                continue;
            };
            named.push(s.to_owned());
            added.push(Prop {
                name: s.to_owned(),
                value: entry.value.clone(),
                important: entry.important == Some(true),
                parsed_ok: true,
                disabled: false,
                leading: true,
                implied: false,
                longhands: Vec::new(),
            });
        }
    }
    out.extend(added);
    out
}

fn canonical(name: &str) -> String {
    if name.starts_with("--") {
        name.to_owned()
    } else {
        name.to_ascii_lowercase()
    }
}

pub(super) fn strip_important(value: &str) -> String {
    let trimmed = value.trim_end();
    let lower = trimmed.to_ascii_lowercase();
    match lower.strip_suffix("important").map(str::trim_end) {
        Some(rest) if rest.ends_with('!') => trimmed[..rest.len() - 1].trim_end().to_owned(),
        _ => value.to_owned(),
    }
}

/// Where a rule comes from, as DevTools names it: `file.css:12`, `index:3` for the page
/// itself, or the browser's own sheets.
fn source(rule: &CSSRule, sheets: &HashMap<String, Sheet>) -> String {
    match rule.origin {
        StyleSheetOrigin::UserAgent => return "user agent stylesheet".into(),
        StyleSheetOrigin::Injected => return "injected stylesheet".into(),
        StyleSheetOrigin::Inspector => return "via inspector".into(),
        _ => {}
    }
    let sheet = rule.style_sheet_id.as_ref().and_then(|id| sheets.get(id));
    let sheet = sheet.cloned().unwrap_or_default();
    if sheet.constructed && sheet.url.is_empty() {
        return "constructed stylesheet".into();
    }
    let line = rule
        .selector_list
        .selectors
        .first()
        .and_then(|s| s.range.as_ref())
        .or(rule.style.range.as_ref())
        .map(|r| format!(":{}", sheet.start_line as i64 + r.start_line + 1))
        .unwrap_or_default();
    if sheet.url.is_empty() {
        return format!("<style>{line}");
    }
    format!("{}{line}", file_name(&sheet.url))
}

pub(super) fn file_name(url: &str) -> String {
    if url.starts_with("data:") {
        return "data-uri".into();
    }
    if url.starts_with("blob:") {
        return "blob".into();
    }
    let path = url.split(['?', '#']).next().unwrap_or("");
    let path = path.split_once("://").map_or(path, |(_, rest)| {
        rest.split_once('/').map_or("", |(_, p)| p)
    });
    match path.rsplit('/').next() {
        Some(last) if !last.is_empty() => last.to_owned(),
        _ => "index".into(),
    }
}

/// The at-rules around a rule, outermost first, as DevTools writes their headers.
fn at_rules(rule: &CSSRule) -> Vec<String> {
    let texts = |v: &Option<Vec<String>>| v.clone().unwrap_or_default();
    let media: Vec<String> = rule
        .media
        .iter()
        .flatten()
        .map(|m| m.text.clone())
        .collect();
    let supports: Vec<String> = rule
        .supports
        .iter()
        .flatten()
        .map(|s| s.text.clone())
        .collect();
    let layers: Vec<String> = rule
        .layers
        .iter()
        .flatten()
        .map(|l| l.text.clone())
        .collect();
    let scopes: Vec<String> = rule
        .scopes
        .iter()
        .flatten()
        .map(|s| s.text.clone())
        .collect();
    let containers: Vec<(String, Option<String>)> = rule
        .container_queries
        .iter()
        .flatten()
        .map(|c| (c.text.clone(), c.name.clone()))
        .collect();
    let nesting = texts(&rule.nesting_selectors);
    let (mut mi, mut si, mut li, mut sci, mut ci, mut ni) = (0, 0, 0, 0, 0, 0);
    let mut out = Vec::new();
    let next = |v: &[String], i: &mut usize| {
        *i += 1;
        v.get(*i - 1).cloned()
    };
    for t in rule.rule_types.iter().flatten() {
        let header = match t {
            CSSRuleType::MediaRule => next(&media, &mut mi).map(|q| format!("@media {q}")),
            CSSRuleType::SupportsRule => next(&supports, &mut si).map(|q| format!("@supports {q}")),
            CSSRuleType::LayerRule => next(&layers, &mut li).map(|n| match n.is_empty() {
                true => "@layer".to_owned(),
                false => format!("@layer {n}"),
            }),
            CSSRuleType::ScopeRule => next(&scopes, &mut sci).map(|q| match q.trim() {
                "" => "@scope".to_owned(),
                q => format!("@scope {q}"),
            }),
            CSSRuleType::ContainerRule => {
                ci += 1;
                containers.get(ci - 1).map(|(query, name)| match name {
                    Some(n) if !query.starts_with(n.as_str()) => format!("@container {n} {query}"),
                    _ => format!("@container {query}"),
                })
            }
            CSSRuleType::StartingStyleRule => Some("@starting-style".to_owned()),
            CSSRuleType::StyleRule => next(&nesting, &mut ni),
            _ => None,
        };
        out.extend(header);
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_named_as_devtools_names_them() {
        assert_eq!(
            file_name("http://127.0.0.1:8000/css/site.css?v=2"),
            "site.css"
        );
        assert_eq!(file_name("http://127.0.0.1:8000/"), "index");
        assert_eq!(file_name("http://127.0.0.1:8000"), "index");
        assert_eq!(file_name("data:text/css,p{}"), "data-uri");
        assert_eq!(file_name("blob:http://x/1"), "blob");
    }

    #[test]
    fn important_is_taken_off_the_value() {
        assert_eq!(strip_important("red !important"), "red");
        assert_eq!(strip_important("red ! IMPORTANT "), "red");
        assert_eq!(strip_important("red"), "red");
    }
}

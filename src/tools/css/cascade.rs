//! Which declarations win: DevTools' cascade as its Styles pane shows it, computed from the
//! browser's matched styles. Pure logic.
//!
//! The browser lists, for the element and for each ancestor it inherits from, the styles that
//! match, and for each style its declarations. Within one element's styles the later (more
//! precedent) declaration of a property wins unless the earlier one is `!important` and it is
//! not; across elements the element's own winner beats any inherited one, and a nearer
//! ancestor's beats a farther one's. Only inheritable properties come from ancestors.

use std::collections::HashMap;

/// One declaration as the cascade sees it.
#[derive(Debug, Clone, Default)]
pub(super) struct Decl {
    /// Lower case, or a custom property's own spelling.
    pub(super) name: String,
    pub(super) important: bool,
    /// Parsed and not disabled: it takes part in the cascade.
    pub(super) usable: bool,
    /// An implied longhand of a shorthand written in the style (the shorthand's own
    /// `longhands` stand for it): not counted by itself.
    pub(super) implied: bool,
    /// The longhands a shorthand sets.
    pub(super) longhands: Vec<String>,
}

/// The declarations of one style, and whose style it is: 0 the element, 1 its parent, ….
#[derive(Debug, Clone, Default)]
pub(super) struct Style {
    pub(super) level: usize,
    pub(super) decls: Vec<Decl>,
}

/// Whether each declaration of each style lost (`true`: DevTools' "overloaded"). `styles` go
/// from the most precedent to the least, the element's first, then each ancestor's.
pub(super) fn overloaded(styles: &[Style]) -> Vec<Vec<bool>> {
    let mut out: Vec<Vec<bool>> = styles.iter().map(|s| vec![false; s.decls.len()]).collect();
    // Winners so far across elements, nearest first.
    let mut taken: HashMap<String, ()> = HashMap::new();
    let mut level_start = 0;
    while level_start < styles.len() {
        let level = styles[level_start].level;
        let level_end = styles[level_start..]
            .iter()
            .position(|s| s.level != level)
            .map_or(styles.len(), |n| level_start + n);
        let winners = one_element(styles, level_start..level_end, &mut out);
        for (name, who) in winners {
            let lost = taken.insert(name, ()).is_some();
            if let (true, Who::Decl(s, d)) = (lost, who) {
                out[s][d] = true;
            }
        }
        level_start = level_end;
    }
    out
}

/// Who holds a property: a declaration, or a longhand set by a shorthand declaration.
#[derive(Debug, Clone, Copy)]
enum Who {
    Decl(usize, usize),
    Longhand,
}

/// The cascade among one element's styles; marks the losers and returns the winners by name,
/// in the order they won.
fn one_element(
    styles: &[Style],
    range: std::ops::Range<usize>,
    out: &mut [Vec<bool>],
) -> Vec<(String, Who)> {
    let inherited = styles[range.start].level > 0;
    let mut active: HashMap<String, (Who, bool)> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    for s in range.rev() {
        for (d, decl) in styles[s].decls.iter().enumerate() {
            if (inherited && !is_inherited(&decl.name)) || decl.implied {
                continue;
            }
            if !decl.usable {
                out[s][d] = true;
                continue;
            }
            let mut claim = |name: &str, who: Who, out: &mut [Vec<bool>]| {
                match active.get(name) {
                    Some((_, true)) if !decl.important => {
                        if let Who::Decl(s, d) = who {
                            out[s][d] = true;
                        }
                        return;
                    }
                    Some((Who::Decl(os, od), _)) => out[*os][*od] = true,
                    Some((Who::Longhand, _)) => {}
                    None => order.push(name.to_owned()),
                }
                active.insert(name.to_owned(), (who, decl.important));
            };
            claim(&decl.name, Who::Decl(s, d), out);
            for longhand in &decl.longhands {
                claim(longhand, Who::Longhand, out);
            }
        }
    }
    order
        .into_iter()
        .filter_map(|name| {
            let (who, _) = *active.get(&name)?;
            match who {
                Who::Decl(s, d) if out[s][d] => None,
                _ => Some((name, who)),
            }
        })
        .collect()
}

/// Properties an element takes from its parent unless it sets them: custom properties and the
/// standard inherited ones (CSS specifications; the list Chromium marks `inherited`).
pub(super) fn is_inherited(name: &str) -> bool {
    if name.starts_with("--") {
        return true;
    }
    let family = |p: &&str| name == *p || name.strip_prefix(*p).is_some_and(|r| r.starts_with('-'));
    INHERITED_FAMILIES.iter().any(family) || INHERITED.contains(&name)
}

/// Inherited properties named one by one.
const INHERITED: &[&str] = &[
    "accent-color",
    "border-collapse",
    "border-spacing",
    "caption-side",
    "caret-color",
    "clip-rule",
    "color",
    "color-interpolation",
    "color-interpolation-filters",
    "color-rendering",
    "color-scheme",
    "cursor",
    "direction",
    "dominant-baseline",
    "empty-cells",
    "forced-color-adjust",
    "hanging-punctuation",
    "hyphenate-character",
    "hyphens",
    "image-orientation",
    "image-rendering",
    "letter-spacing",
    "line-break",
    "line-height",
    "math-depth",
    "math-shift",
    "math-style",
    "orphans",
    "overflow-wrap",
    "paint-order",
    "pointer-events",
    "print-color-adjust",
    "quotes",
    "ruby-align",
    "ruby-position",
    "shape-rendering",
    "speak",
    "tab-size",
    "text-align",
    "text-align-last",
    "text-anchor",
    "text-autospace",
    "text-combine-upright",
    "text-decoration-skip-ink",
    "text-indent",
    "text-justify",
    "text-orientation",
    "text-rendering",
    "text-shadow",
    "text-size-adjust",
    "text-spacing-trim",
    "text-transform",
    "text-underline-offset",
    "text-underline-position",
    "text-wrap",
    "text-wrap-mode",
    "text-wrap-style",
    "visibility",
    "white-space",
    "white-space-collapse",
    "widows",
    "word-break",
    "word-spacing",
    "word-wrap",
    "writing-mode",
    "-webkit-font-smoothing",
    "-webkit-locale",
    "-webkit-rtl-ordering",
    "-webkit-tap-highlight-color",
    "-webkit-text-fill-color",
    "-webkit-text-security",
    "-webkit-user-modify",
    "-webkit-writing-mode",
];

/// Families whose every property is inherited (`font`, `font-size`, …).
const INHERITED_FAMILIES: &[&str] = &[
    "font",
    "text-emphasis",
    "list-style",
    "stroke",
    "fill",
    "marker",
    "-webkit-text-stroke",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn decl(name: &str, important: bool) -> Decl {
        Decl {
            name: name.into(),
            important,
            usable: true,
            ..Default::default()
        }
    }

    fn style(level: usize, decls: Vec<Decl>) -> Style {
        Style { level, decls }
    }

    #[test]
    fn the_more_precedent_style_wins_unless_the_other_is_important() {
        // Most precedent first: inline, then .a, then p.
        let styles = vec![
            style(0, vec![decl("color", false), decl("margin-top", false)]),
            style(0, vec![decl("color", false), decl("margin-top", true)]),
            style(0, vec![decl("color", true)]),
        ];
        let o = overloaded(&styles);
        assert_eq!(o, vec![vec![true, true], vec![true, false], vec![false]]);
    }

    #[test]
    fn the_element_beats_its_ancestors_and_only_inherited_properties_come_down() {
        let styles = vec![
            style(0, vec![decl("color", false)]),
            style(
                1,
                vec![
                    decl("color", false),
                    decl("font-size", false),
                    decl("width", false),
                ],
            ),
            style(2, vec![decl("font-size", false), decl("--x", false)]),
        ];
        let o = overloaded(&styles);
        // `width` is not inherited: left unmarked (it is not shown for an ancestor).
        assert_eq!(
            o,
            vec![vec![false], vec![true, false, false], vec![true, false]]
        );
    }

    #[test]
    fn a_shorthand_sets_its_longhands_and_unusable_declarations_lose() {
        let mut margin = decl("margin", false);
        margin.longhands = vec!["margin-top".into(), "margin-left".into()];
        let mut broken = decl("color", false);
        broken.usable = false;
        let implied = Decl {
            implied: true,
            ..decl("margin-top", false)
        };
        let styles = vec![
            style(0, vec![margin, implied, broken]),
            style(0, vec![decl("margin-top", false), decl("color", false)]),
        ];
        let o = overloaded(&styles);
        assert_eq!(o, vec![vec![false, false, true], vec![true, false]]);
    }

    #[test]
    fn a_longhand_set_by_a_less_precedent_shorthand_is_won_once() {
        let mut margin = decl("margin", false);
        margin.longhands = vec!["margin-top".into()];
        let styles = vec![
            style(0, vec![decl("margin-top", false)]),
            style(0, vec![margin]),
        ];
        assert_eq!(overloaded(&styles), vec![vec![false], vec![false]]);
    }

    #[test]
    fn inherited_lists() {
        assert!(is_inherited("color") && is_inherited("font-family") && is_inherited("--brand"));
        assert!(!is_inherited("margin") && !is_inherited("display") && !is_inherited("fontx"));
    }
}

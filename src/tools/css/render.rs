//! The answer's text: DevTools' Styles pane written out as CSS, two spaces per level, losing
//! declarations tagged `[overloaded]`.

use super::model::{Block, Place, Shown};

/// `Styles for … (uid: "…"):` and the blocks.
pub(super) fn text(element: &str, uid: &str, blocks: &[Block]) -> String {
    let mut lines = vec![format!("Styles for {element} (uid: \"{uid}\"):")];
    if blocks.is_empty() {
        lines.push(String::new());
        lines.push("  (no styles)".to_owned());
    }
    for block in blocks {
        lines.push(String::new());
        match &block.place {
            Place::Own => rule(&mut lines, 2, block),
            Place::Inherited { selector, uid } => {
                let uid = uid
                    .as_ref()
                    .map(|u| format!(" (uid: \"{u}\")"))
                    .unwrap_or_default();
                lines.push(format!("  Inherited from {selector}{uid}:"));
                rule(&mut lines, 4, block);
            }
            Place::Pseudo(pseudo) => {
                lines.push(format!("  /* Pseudo {pseudo} element */"));
                rule(&mut lines, 2, block);
            }
        }
    }
    lines.join("\n")
}

fn rule(lines: &mut Vec<String>, indent: usize, block: &Block) {
    let mut at = indent;
    for (i, header) in block.ancestors.iter().enumerate() {
        for (_, comment) in block.comments.iter().filter(|(at, _)| *at == i) {
            lines.push(format!("{:at$}/* {comment} */", ""));
        }
        lines.push(format!("{:at$}{header} {{", ""));
        at += 2;
    }
    let source = block
        .source
        .as_ref()
        .map(|s| format!(" ({s})"))
        .unwrap_or_default();
    lines.push(format!("{:at$}{}{source} {{", "", block.selector));
    for p in &block.props {
        lines.push(format!("{:w$}{}", "", declaration(p), w = at + 2));
    }
    for (key, props) in &block.steps {
        lines.push(format!("{:w$}{key} {{", "", w = at + 2));
        for p in props {
            lines.push(format!("{:w$}{}", "", declaration(p), w = at + 4));
        }
        lines.push(format!("{:w$}}}", "", w = at + 2));
    }
    lines.push(format!("{:at$}}}", ""));
    while at > indent {
        at -= 2;
        lines.push(format!("{:at$}}}", ""));
    }
}

fn declaration(p: &Shown) -> String {
    let tag = match p.status {
        "active" => String::new(),
        other => format!("[{other}] "),
    };
    let important = if p.important { " !important" } else { "" };
    format!("{tag}{}: {}{important};", p.name, p.value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(name: &str, value: &str, status: &'static str) -> Shown {
        Shown {
            name: name.into(),
            value: value.into(),
            important: false,
            status,
        }
    }

    #[test]
    fn blocks_are_written_as_css() {
        let blocks = vec![
            Block {
                place: Place::Own,
                ancestors: vec!["@media (min-width: 1px)".into()],
                selector: ".a".into(),
                source: Some("page.html:5".into()),
                props: vec![Shown {
                    important: true,
                    ..shown("color", "red", "active")
                }],
                steps: Vec::new(),
                comments: Vec::new(),
            },
            Block {
                place: Place::Inherited {
                    selector: "body".into(),
                    uid: Some("1_2".into()),
                },
                ancestors: vec![],
                selector: "body".into(),
                source: Some("page.html:3".into()),
                props: vec![shown("color", "blue", "overloaded")],
                steps: Vec::new(),
                comments: Vec::new(),
            },
        ];
        let want = "Styles for p.a (uid: \"1_5\"):\n\n  @media (min-width: 1px) {\n    .a (page.html:5) {\n      color: red !important;\n    }\n  }\n\n  Inherited from body (uid: \"1_2\"):\n    body (page.html:3) {\n      [overloaded] color: blue;\n    }";
        assert_eq!(text("p.a", "1_5", &blocks), want);
        assert_eq!(
            text("p", "1_1", &[]),
            "Styles for p (uid: \"1_1\"):\n\n  (no styles)"
        );
    }
}

//! Text helpers the record-keeping families share: console messages, network URLs, headers
//! and bodies are cut the same way, as the reference marks a cut body.

/// Cuts `text` after `max` characters, saying so: `<text>... <truncated>`.
pub(crate) fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}... <truncated>", &text[..i]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_counts_characters_and_says_so() {
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("abcd", 3), "abc... <truncated>");
        assert_eq!(cut("äöüß", 2), "äö... <truncated>");
    }
}

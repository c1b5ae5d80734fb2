//! `--redactNetworkHeaders`: header values are shown only for names on
//! Chrome DevTools' list of headers that carry no secrets (the list the reference uses);
//! every other value (cookies, authorization, custom tokens) becomes `<redacted>`.

use super::record::Headers;

/// Replaces the value of every header not on the list.
pub(super) fn redact(headers: &mut Headers) {
    for (name, value) in headers.iter_mut() {
        if !crate::headers::shown(name) {
            *value = "<redacted>".to_owned();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted() {
        let mut h: Headers = vec![
            ("Content-Type".into(), "text/html".into()),
            ("Cookie".into(), "session=1".into()),
            ("Authorization".into(), "Bearer x".into()),
            ("X-Api-Key".into(), "k".into()),
        ];
        redact(&mut h);
        let values: Vec<&str> = h.iter().map(|(_, v)| v.as_str()).collect();
        assert_eq!(
            values,
            ["text/html", "<redacted>", "<redacted>", "<redacted>"]
        );
    }
}

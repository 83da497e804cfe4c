//! Rules that turn more mined classes into tasks without making their tests over-strict, each
//! on a small class forged in the real sandbox (validated under the default harness): an
//! argument that lacks an attribute becomes an ordinary value that has it before it becomes an
//! `_Obj`, and a docstring's "a list of strings" gives lists of strings. Needs Linux and the
//! project's `.python/classeval`.

mod common;

use classlab::forge::task::Forged;

mod forge_support;

fn module(f: &Forged) -> &str {
    assert_eq!(f.dropped, None, "{:?}", f.evidence);
    &f.task.as_ref().expect("forged").test_module
}

/// The lines of the module that call `method`.
fn calls<'m>(module: &'m str, method: &str) -> Vec<&'m str> {
    let call = format!(".{method}(");
    module
        .lines()
        .map(str::trim)
        .filter(|l| l.contains(&call) && !l.starts_with("self.assert"))
        .collect()
}

const PACKET: &str = r#"class Packet:
    """Decoded packets."""

    def __init__(self):
        self.count = 0

    def feed(self, payload):
        """Decode a payload and count its characters.
        :param payload: the raw payload
        :return: the decoded text, upper-cased
        """
        text = payload.decode("utf-8")
        self.count += len(text)
        return text.upper()
"#;

#[test]
fn a_missing_attribute_gets_an_ordinary_value_that_has_it_before_an_object() {
    // `'str' object has no attribute 'decode'`: bytes have it; `_Obj(decode=…)` would stand
    // in for bytes, and a candidate that reads them another way (`str(payload, 'utf-8')`)
    // would fail on it although it is right.
    let f = forge_support::forge_source("Packet", PACKET);
    let m = module(&f);
    let objects = m.lines().filter(|l| l.contains("_Obj(") && !l.starts_with("class _Obj("));
    assert_eq!(objects.count(), 0, "no object where bytes do:\n{m}");
    let feeds = calls(m, "feed");
    assert!(!feeds.is_empty(), "feed is called:\n{m}");
    assert!(
        feeds.iter().all(|l| l.contains(".feed(b'") || l.contains(".feed(b\"")),
        "every payload is bytes: {feeds:?}"
    );
    assert!(m.contains("self.assertEqual(obj.count, "), "{m}");
}

const WORDS: &str = r#"class Words:
    """Lengths of words."""

    def __init__(self):
        self.seen = 0

    def total(self, words):
        """The total length of the words.
        :param words: a list of strings
        :return: int
        """
        self.seen += len(words)
        return sum(len(str(w)) for w in words)
"#;

#[test]
fn a_list_of_strings_in_prose_gives_lists_of_strings() {
    // "a list of strings" (an article, a plural) is a list of `str`, not a list of anything:
    // `str(w)` accepts an int, so only the type says the items are strings.
    let f = forge_support::forge_source("Words", WORDS);
    let m = module(&f);
    let totals = calls(m, "total");
    assert!(!totals.is_empty(), "total is called:\n{m}");
    for line in &totals {
        let args = line
            .split_once(".total(")
            .map(|(_, rest)| rest)
            .unwrap_or_default();
        let items = args.trim_end_matches(')').trim_start_matches('[').trim_end_matches(']');
        for item in items.split(", ").filter(|s| !s.is_empty()) {
            assert!(
                item.starts_with('\'') || item.starts_with('"'),
                "only strings in {line}"
            );
        }
    }
}

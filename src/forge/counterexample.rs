//! The counterexample a failing forged test names. The written module's `_FreshDir`
//! (`assets/forge/forge_helpers.py`) puts it, when a test fails, into the assertion's message
//! (or onto another exception as a note, so its type and message stay the class's): the calls
//! up to the first where the class under test and the reference differ, what the reference did
//! there and what the class did. It travels in the test's own message or traceback, so every
//! harness carries it; this module reads it back for display.

use crate::model::TestResult;

/// The first line of the block, as the helpers write it.
pub const MARKER: &str = "counterexample: ";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counterexample {
    /// `call 3 of 4 is the first that differs from the reference`.
    pub headline: String,
    /// The calls in order, as the test writes them; the last is the one that differs.
    pub calls: Vec<String>,
    /// What the reference did there (the test's assertions), and what the class did.
    pub expected: String,
    pub actual: String,
}

/// The counterexample in `text` and the byte range of its block.
pub fn parse(text: &str) -> Option<(Counterexample, std::ops::Range<usize>)> {
    let start = text
        .match_indices(MARKER)
        .map(|(i, _)| i)
        .find(|&i| i == 0 || text[..i].ends_with('\n'))?;
    let mut lines = text[start..].split_inclusive('\n');
    let first = lines.next()?;
    let headline = first.strip_prefix(MARKER)?.trim().to_string();
    let mut end = start + first.len();
    let (mut calls, mut expected, mut actual) = (Vec::new(), None, None);
    for line in lines {
        let body = line.trim();
        end += line.len();
        if let Some(e) = body.strip_prefix("expected: ") {
            expected = Some(e.trim().to_string());
        } else if let Some(a) = body.strip_prefix("actual: ") {
            actual = Some(a.trim().to_string());
            break;
        } else if let Some(call) = call_of(line) {
            calls.push(call.to_string());
        } else {
            break;
        }
    }
    Some((
        Counterexample {
            headline,
            calls,
            expected: expected?,
            actual: actual?,
        },
        start..end,
    ))
}

/// `>  3  obj.withdraw(20)` → `obj.withdraw(20)`.
fn call_of(line: &str) -> Option<&str> {
    let line = line.trim_end_matches(['\n', '\r']);
    let rest = line.strip_prefix(['>', ' '])?.trim_start();
    let digits = rest.find(|c: char| !c.is_ascii_digit())?;
    (digits > 0).then_some(())?;
    rest[digits..].strip_prefix("  ")
}

/// A failing test's counterexample: in its message (an assertion failed) or its traceback (a
/// note on the exception the class raised).
pub fn of_test(test: &TestResult) -> Option<Counterexample> {
    [&test.message, &test.traceback]
        .into_iter()
        .flatten()
        .find_map(|t| parse(t).map(|(c, _)| c))
}

/// `text` (a message, a traceback) without the counterexample block, which is shown apart.
pub fn without(text: &str) -> std::borrow::Cow<'_, str> {
    match parse(text) {
        Some((_, r)) if r.end >= text.len() => text[..r.start].trim_end().into(),
        Some((_, r)) => format!("{}{}", &text[..r.start], &text[r.end..]).into(),
        None => text.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: &str = "counterexample: call 2 of 3 is the first that differs from the reference\n   1  obj = BankAccount(10)\n>  2  obj.withdraw(20)\n      expected: raises ValueError\n      actual:   returns normally";

    #[test]
    fn reads_the_block_from_an_assertion_message() {
        let msg = format!("ValueError not raised\n\n{BLOCK}");
        let (c, at) = parse(&msg).expect("found");
        assert_eq!(at.end, msg.len());
        assert_eq!(
            c.calls,
            ["obj = BankAccount(10)", "obj.withdraw(20)"],
            "{c:?}"
        );
        assert_eq!(c.expected, "raises ValueError");
        assert_eq!(c.actual, "returns normally");
        assert!(c.headline.starts_with("call 2 of 3"));
        assert_eq!(without(&msg), "ValueError not raised");
        assert_eq!(&msg[at.start..at.start + MARKER.len()], MARKER);
    }

    #[test]
    fn finds_a_note_in_the_traceback_and_ignores_other_text() {
        let t = TestResult {
            traceback: Some(format!("Traceback ...\nKeyError: 'x'\n{BLOCK}\n")),
            message: Some("'x'".into()),
            ..TestResult::new("A.test_a", crate::model::Outcome::Error)
        };
        assert_eq!(of_test(&t).expect("found").actual, "returns normally");
        let tb = t.traceback.as_deref().unwrap();
        assert_eq!(without(tb), "Traceback ...\nKeyError: 'x'");
        assert_eq!(parse("no counterexample: here"), None);
        assert_eq!(parse("counterexample: call 1 of 1\n   1  A()\n"), None);
        assert_eq!(without("1 != 2"), "1 != 2");
    }
}

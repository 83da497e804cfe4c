//! The one place every rule is documented: code, severity, title, what it checks, why.
//! `classlab lint --rules` prints this table.

use serde::Serialize;

use super::Severity::{self, Error, Info, Warning};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rule {
    pub code: &'static str,
    pub severity: Severity,
    pub title: &'static str,
    pub checks: &'static str,
    pub why: &'static str,
}

const fn r(
    code: &'static str,
    severity: Severity,
    title: &'static str,
    checks: &'static str,
    why: &'static str,
) -> Rule {
    Rule {
        code,
        severity,
        title,
        checks,
        why,
    }
}

pub static RULES: &[Rule] = &[
    r(
        "I1",
        Warning,
        "unused import",
        "A module-level import of the reference (or of the skeleton) binds a name the reference never uses.",
        "The skeleton's imports hint at the libraries to use; a dead one misleads the model.",
    ),
    r(
        "I2",
        Error,
        "code does not parse",
        "The reference or the test module has a syntax error (tree-sitter).",
        "Nothing can be evaluated against code that does not parse.",
    ),
    r(
        "I4",
        Warning,
        "redundant code",
        "Statements after return/raise/break/continue in the same block, `pass` beside other statements, `x = x`.",
        "Dead code in the reference is noise for readers and for similarity metrics.",
    ),
    r(
        "I5",
        Warning,
        "commented-out code",
        "A comment whose text is a Python statement (a call, an assignment, an import, a return …).",
        "Leftovers of editing; in the skeleton or tests they are shown to the model.",
    ),
    r(
        "I6",
        Warning,
        "empty constructor",
        "`__init__` has nothing but `pass`, `...` or a docstring.",
        "An empty constructor is noise; the class needs no `__init__` then.",
    ),
    r(
        "S1",
        Error,
        "doctest calls a method the skeleton lacks",
        "A `>>>` example calls `obj.name(…)` on an instance of the class (or on the class) and `name` is not a method of the skeleton.",
        "The example cannot run and tells the model about a method it must not write.",
    ),
    r(
        "S2",
        Error,
        "instance method called on the class",
        "A `>>>` example calls `Class.m(…)` and `m` is neither a @staticmethod nor a @classmethod.",
        "The example fails with a missing-argument TypeError; the method should be static.",
    ),
    r(
        "S3",
        Error,
        "instance method called without an instance",
        "A `>>>` example calls a method bare (`m(…)`), on `self`, or on a variable no example of the same docstring creates (doctests share no variables across docstrings).",
        "The example cannot run as written (NameError), so it cannot become a public test.",
    ),
    r(
        "S4",
        Error,
        "skeleton and reference methods differ",
        "The reference class defines a method the skeleton lacks, or the reverse (`__init__` aside).",
        "The model is asked for a different class than the tests check.",
    ),
    r(
        "S5",
        Warning,
        "skeleton constructor differs from the reference's",
        "The statements of the skeleton's `__init__` (docstring and comments aside) differ from the reference's.",
        "The given constructor is part of the prompt; when it differs, generated code runs with a constructor the tests never saw (ClassEval_69).",
    ),
    r(
        "S6",
        Error,
        "skeleton is not a valid class",
        "The skeleton does not parse (curly quotes, an unterminated docstring …) or defines no class of the task's name (e.g. it sits inside a string).",
        "The prompt the model gets is broken.",
    ),
    r(
        "D2",
        Warning,
        "constructor without docstring",
        "The skeleton's `__init__` has no docstring.",
        "The cleaned benchmark documents the constructor's parameters and fields (`:param`, `:ivar`).",
    ),
    r(
        "D4",
        Error,
        "documented parameter not in the signature",
        "A `:param name:` of a method docstring names no parameter of its signature.",
        "The docstring contradicts the signature the model must implement.",
    ),
    r(
        "D5",
        Error,
        "doctest argument the signature does not accept",
        "A `>>>` example calls the method with a keyword the signature lacks, or with more positional arguments than it takes.",
        "The example cannot run against any implementation of the signature.",
    ),
    r(
        "D7",
        Error,
        "method without docstring",
        "A target method of the skeleton has no docstring.",
        "The model gets only a name to implement.",
    ),
    r(
        "D8",
        Warning,
        "docstring without description",
        "A method docstring has fields or examples but no sentence saying what the method does.",
        "The behaviour must be guessed from examples.",
    ),
    r(
        "D10",
        Warning,
        "parameter not documented",
        "A parameter of a target method has no `:param` line (a rename reported as D4 is not counted again).",
        "The model does not learn the parameter's type or meaning.",
    ),
    r(
        "D13",
        Warning,
        "non-Python type name",
        "The type part of a `:param`/`:return:` field uses `string`, `integer`, `boolean`, `Bool`, `float number`, `dictionary` … instead of Python's names.",
        "Types in docstrings should be the Python types the code uses.",
    ),
    r(
        "D14",
        Warning,
        "return value not documented",
        "The reference returns a value but the docstring has no `:return` field.",
        "The model must guess what to return.",
    ),
    r(
        "D15",
        Info,
        "mutator without `:return: None`",
        "The reference returns nothing but the docstring has no `:return:` field.",
        "The cleaned benchmark writes `:return: None` so that mutators are explicit.",
    ),
    r(
        "D16",
        Info,
        "mixed docstring styles",
        "The class's docstrings mix reST fields (`:param`) with Google (`Args:`), NumPy or Epytext (`@param`) sections.",
        "One style per benchmark; mixed styles are noise in the prompt.",
    ),
    r(
        "D17",
        Info,
        "mixed verb forms",
        "Some method descriptions of the class start with an imperative verb (`Return`) and others with the third person (`Returns`).",
        "One voice per class reads as one specification.",
    ),
    r(
        "D19",
        Info,
        "container without element types",
        "A `:param`/`:return:` type is a bare `list`, `dict`, `set` or `tuple` and the field never says what it holds.",
        "The model must guess the element types or dictionary keys.",
    ),
    r(
        "T1",
        Warning,
        "duplicate test",
        "Two tests of one class have the same body (layout and comments aside).",
        "A duplicate adds no check and inflates the pass rate.",
    ),
    r(
        "T2",
        Info,
        "near-duplicate test",
        "Two tests of one class have the same shape, the same assertions and expected values, and differ only in input literals of the same kind (not an edge case such as '' or 0, nor another casing).",
        "It checks the same behaviour again; usually a copy that was meant to be changed.",
    ),
    r(
        "T3",
        Warning,
        "test duplicated in another class",
        "A test has the same body as a test of another test class.",
        "A duplicate adds no check and inflates the pass rate.",
    ),
    r(
        "T4",
        Warning,
        "test without isolation",
        "With no seed or mock, a test class draws random numbers itself, calls a reference method that reads the clock (or reads the clock itself while the reference does too), or reaches the network. Files are T5/T6.",
        "Outcomes depend on the machine, the clock or the order of runs.",
    ),
    r(
        "T5",
        Warning,
        "test leaves files behind",
        "A test class creates files (directly or through a method that writes them) and nothing removes them.",
        "Left-over files make later runs pass or fail for the wrong reason.",
    ),
    r(
        "T6",
        Info,
        "cleanup inside the test body",
        "A test removes its files in its own body instead of in `tearDown`/`addCleanup`.",
        "A failing assertion skips the cleanup and leaves the files behind.",
    ),
    r(
        "T7",
        Error,
        "test class listing broken",
        "A name in `test_classes` or a method's `test_class` is not a class of the test module (e.g. a leading space).",
        "A harness that loads the listed classes fails or skips tests.",
    ),
    r(
        "T8",
        Error,
        "method test never calls the method",
        "The test class of a method never references that method.",
        "The method is not tested by the tests that claim to test it.",
    ),
    r(
        "T9",
        Info,
        "method test calls other target methods",
        "The test class of method A calls other target methods on the class under test.",
        "It is not a unit test: a fault elsewhere fails it, and TDD guidance needs unit tests.",
    ),
    r(
        "T10",
        Warning,
        "typo in a test name",
        "A test name misspells the method it tests, or a method name misspells `test` (and so never runs).",
        "Misleading names; a misspelled `test` prefix silently drops the test.",
    ),
    r(
        "T13",
        Warning,
        "test class off the naming convention",
        "A test class is not named `<Class>Test<Method>`/`<Class>TestMain`, or has no test methods.",
        "Tests cannot be mapped to methods; an empty test class tests nothing.",
    ),
    r(
        "T14",
        Warning,
        "method without a test class",
        "A target method has no test class of its own.",
        "The method is only tested through others, if at all.",
    ),
    r(
        "T15",
        Error,
        "task without tests",
        "The task has no test module, or its test module defines no test (a class exported from a corpus has none).",
        "Nothing can judge generated code for it: `eval`, `run` and `validate` leave it out, and no metric may count it as a failure.",
    ),
    r(
        "DEP",
        Warning,
        "annotation differs from the call graph",
        "A method's annotated `method_dependencies` differ from the methods its reference code references through self/cls/the class.",
        "Dependency metrics are only as good as the ground truth.",
    ),
];

/// The rule with this code (case-insensitive).
pub fn rule(code: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.code.eq_ignore_ascii_case(code))
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn codes_are_unique_and_documented() {
        let mut codes: Vec<_> = RULES.iter().map(|r| r.code).collect();
        codes.sort();
        codes.dedup();
        assert_eq!(codes.len(), RULES.len());
        assert!(
            RULES
                .iter()
                .all(|r| !r.title.is_empty() && !r.checks.is_empty())
        );
        assert_eq!(rule("d13").map(|r| r.code), Some("D13"));
        assert!(rule("X1").is_none());
    }
}

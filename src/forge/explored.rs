//! What the explorer reports (`assets/forge/explore.py`), read into plain data: the selected
//! sequences with their traces and the assertions a test makes about them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// An argument of a call, as the explorer built it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Arg {
    /// A literal (Python source).
    Lit {
        lit: String,
    },
    /// The value an earlier step returned (1-based call index).
    Ref {
        #[serde(rename = "ref")]
        step: usize,
    },
    /// A fresh instance of the class under test (instance number, constructor arguments).
    New {
        new: usize,
        args: Vec<Arg>,
    },
    List {
        list: Vec<Arg>,
    },
    Set {
        set: Vec<Arg>,
    },
    Tuple {
        tuple: Vec<Arg>,
    },
    Dict {
        dict: Vec<(Arg, Arg)>,
    },
    /// An object with these attributes (`_Obj(height=3)`), built from the reference's
    /// feedback (`'str' object has no attribute 'height'`).
    Obj {
        obj: Vec<(String, Arg)>,
    },
    /// A function returning this value, whatever it is called with.
    Fn {
        #[serde(rename = "fn")]
        returns: Box<Arg>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// The method called, or the field set.
    pub method: String,
    #[serde(default)]
    pub args: Vec<Arg>,
    #[serde(default)]
    pub kwargs: BTreeMap<String, Arg>,
    /// `obj.<method> = args[0]`: a declared public field set, as hand-written tests do.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub set: bool,
}

/// A constructor call, then method calls on the instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sequence {
    pub init: Vec<Arg>,
    #[serde(default)]
    pub init_kwargs: BTreeMap<String, Arg>,
    pub calls: Vec<Call>,
}

/// One thing a test asserts (see `assertions` in `assets/forge/runner_core.py`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Assertion {
    /// The step raised an exception of (a subclass of) this builtin type.
    Raises { step: usize, exc: String },
    /// The step returned this value (normalised by `norm`).
    Returns {
        step: usize,
        src: String,
        #[serde(default)]
        norm: String,
    },
    /// The step returned (did not raise); its value is not asserted.
    Ok { step: usize },
    /// After the step, an instance's public field holds this value.
    Field {
        step: usize,
        inst: usize,
        field: String,
        src: String,
        #[serde(default)]
        norm: String,
    },
}

impl Assertion {
    pub fn step(&self) -> usize {
        match self {
            Assertion::Raises { step, .. }
            | Assertion::Returns { step, .. }
            | Assertion::Ok { step }
            | Assertion::Field { step, .. } => *step,
        }
    }
}

/// One selected, shrunk and replayed sequence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Explored {
    pub seq: Sequence,
    /// Per step: the reference's outcome and state (kept beside the test).
    pub trace: Vec<Value>,
    pub assertions: Vec<Assertion>,
    /// Why it was selected: `["arc", from, to]`, `["mutant", id]`, `["method", name]`.
    #[serde(default)]
    pub goals: Vec<Value>,
    /// Assertions dropped because the value varied between replays, with the reason.
    #[serde(default)]
    pub dropped: Vec<Value>,
}

/// The explorer's whole report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    #[serde(default)]
    pub tests: Vec<Explored>,
    #[serde(default)]
    pub unstable: Vec<Value>,
    #[serde(default)]
    pub arcs_reached: Vec<(i64, i64)>,
    #[serde(default)]
    pub mutants: Value,
    #[serde(default)]
    pub methods_without_test: Vec<String>,
    #[serde(default)]
    pub explored: u64,
    #[serde(default)]
    pub deadline_hit: bool,
    /// The commonest reasons runs were discarded (our arguments broke a call's contract, or
    /// the reference fails on its own), with counts.
    #[serde(default)]
    pub discarded: Vec<(String, u64)>,
    /// The reference did not import in the sandbox (the reason).
    #[serde(default)]
    pub load_error: Option<String>,
    #[serde(default)]
    pub seconds: f64,
    /// coverage.py's figures for the selected sequences on a fresh import of the reference.
    #[serde(default)]
    pub coverage: Coverage,
}

/// coverage.py's figures (`branch=True`, the reference module only), as the explorer measured
/// them while replaying the selected sequences.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    pub line: Option<f64>,
    pub branch: Option<f64>,
    #[serde(default)]
    pub branches: (u64, u64),
    #[serde(default)]
    pub missing_arcs: Vec<(i64, i64)>,
    pub error: Option<String>,
}

//! What the worker reads from the store for the screen: list rows and a class's detail.

/// One row of the list: the class and the values of the shown columns.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub id: i64,
    pub qualname: String,
    pub repo: String,
    pub path: String,
    pub line: i64,
    pub values: Vec<Option<f64>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Method {
    pub name: String,
    pub signature: String,
    pub line: i64,
    pub documented: bool,
}

/// A class opened with Enter, read from the store on demand.
#[derive(Debug, Clone, PartialEq)]
pub struct Detail {
    pub id: i64,
    pub qualname: String,
    pub repo: String,
    pub path: String,
    pub line: i64,
    pub end_line: i64,
    pub code: String,
    pub skeleton: String,
    pub docstring: Option<String>,
    /// Every method definition (a property's getter and setter are two).
    pub methods: Vec<Method>,
    /// How many methods it has: distinct names, as `corpus query` and `CountDeclMethod` count.
    pub method_count: usize,
    /// The intra-class dependency graph: (from, to).
    pub edges: Vec<(String, String)>,
    /// stdlib / third_party / internal → module names.
    pub deps: Vec<(String, Vec<String>)>,
    pub metrics: Vec<(String, f64)>,
    pub total_program_units: i64,
    pub total_doc_str: i64,
    pub self_contained: bool,
    pub dup_cluster: Option<i64>,
    pub near_dup_cluster: Option<i64>,
}

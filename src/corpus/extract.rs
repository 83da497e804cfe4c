//! One file → its rows: read (size-capped), hash, decode (PEP 263), parse once with
//! tree-sitter, then per class everything the store keeps. Never panics on input; every file
//! ends as rows or as a counted reason.

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};
use tree_sitter::Node;

use super::closure::{ClassAt, ClassClosure, Unit, plan};
use super::decode::decode;
use super::deps::{Origin, classify, origin};
use super::ruff::RuffModule;
use super::tokens::{Fingerprint, fingerprint};
use super::walk::{SourceFile, fnv64};
use crate::analysis::metrics::{
    ClassMetrics, Inheritance, class_metrics, coupled_modified, resolve_inheritance,
};
use crate::analysis::parse::{module_from_tree, parse_tree, text};
use crate::analysis::{Class, class_graph, skeleton};

#[derive(Debug, Clone)]
pub struct MethodRow {
    pub name: String,
    pub signature: String,
    pub docstring: Option<String>,
    pub line: usize,
    pub end_line: usize,
    pub decorators: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct ClassRow {
    pub id: i64,
    pub qualname: String,
    pub name: String,
    pub line: usize,
    pub end_line: usize,
    pub code: String,
    pub skeleton: String,
    pub docstring: Option<String>,
    pub methods: Vec<MethodRow>,
    pub edges: Vec<[String; 2]>,
    pub bases: Vec<String>,
    /// Modules the class uses (through module-level or its own imports).
    pub imports: Vec<String>,
    /// Module-level names of its own file it uses (functions, classes, globals).
    pub module_names: Vec<String>,
    /// What it needs of its module to run alone, its dependencies, and why it cannot run on
    /// the standard library alone (`closure.rs`).
    pub closure: ClassClosure,
    pub metrics: ClassMetrics,
    pub fingerprint: Fingerprint,
}

/// What became of one file.
#[derive(Debug, Clone)]
pub struct FileResult {
    pub file: SourceFile,
    /// SHA-256 of the bytes (empty when they could not be read).
    pub hash: String,
    /// `None` when analysed; else the funnel's reason code.
    pub reason: Option<&'static str>,
    pub detail: String,
    pub syntax_errors: bool,
    pub classes: Vec<ClassRow>,
    /// Classes left out because a syntax error falls inside them.
    pub classes_dropped: u32,
    /// The module-level units the classes' closures need.
    pub units: Vec<Unit>,
}

impl FileResult {
    fn dropped(file: SourceFile, hash: String, reason: &'static str, detail: String) -> Self {
        FileResult {
            file,
            hash,
            reason: Some(reason),
            detail,
            syntax_errors: false,
            classes: Vec::new(),
            classes_dropped: 0,
            units: Vec::new(),
        }
    }
}

/// A file read up to a limit.
pub enum Bounded {
    Whole(Vec<u8>),
    /// Longer than the limit (not read past it).
    Over,
}

/// Read a regular file, never more than `max` bytes: a file that grows, or a special file
/// behind a name (`/dev/zero`, a FIFO, which would block), cannot make a build hang or swell.
pub fn read_bounded(path: &std::path::Path, max: u64) -> std::io::Result<Bounded> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    // Non-blocking: opening a FIFO with no writer would otherwise wait forever.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok(if bytes.len() as u64 > max {
        Bounded::Over
    } else {
        Bounded::Whole(bytes)
    })
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Analyse one file. `project` holds its repository's top-level names.
pub fn analyse_file(file: SourceFile, max_size: u64, project: &BTreeSet<String>) -> FileResult {
    if file.size > max_size {
        let detail = format!("{} bytes (limit {max_size})", file.size);
        return FileResult::dropped(file, String::new(), "oversize", detail);
    }
    let bytes = match read_bounded(&file.abs, max_size) {
        Ok(Bounded::Whole(b)) => b,
        // The size seen by the walk can be stale (a file growing while we build).
        Ok(Bounded::Over) => {
            let detail = format!("more than {max_size} bytes (the limit)");
            return FileResult::dropped(file, String::new(), "oversize", detail);
        }
        Err(e) => return FileResult::dropped(file, String::new(), "unreadable", e.to_string()),
    };
    let hash = sha256_hex(&bytes);
    match decode(&bytes) {
        Ok(source) => analyse_source(file, hash, &source, project),
        Err(e) => FileResult::dropped(file, hash, e.reason(), e.to_string()),
    }
}

/// Analyse decoded source (public for tests and in-memory use): with ruff's parser, or with
/// tree-sitter when ruff rejects the file (Python 2, syntax errors — tree-sitter still yields
/// the classes without an error). Both give the same rows (`tests/corpus_frontends.rs`).
pub fn analyse_source(
    file: SourceFile,
    hash: String,
    source: &str,
    project: &BTreeSet<String>,
) -> FileResult {
    match RuffModule::parse(source) {
        Some(rm) => ruff_result(file, hash, source, &rm, project),
        None => analyse_source_tree_sitter(file, hash, source, project),
    }
}

/// [`analyse_source`] with ruff only; `None` when ruff rejects the file.
pub fn analyse_source_ruff(
    file: SourceFile,
    hash: String,
    source: &str,
    project: &BTreeSet<String>,
) -> Option<FileResult> {
    RuffModule::parse(source).map(|rm| ruff_result(file, hash, source, &rm, project))
}

fn ruff_result(
    file: SourceFile,
    hash: String,
    source: &str,
    rm: &RuffModule<'_>,
    project: &BTreeSet<String>,
) -> FileResult {
    let (module, nodes) = rm.module();
    let (bindings, module_level) = rm.module_bindings();
    let mut out = FileResult {
        hash,
        reason: None,
        detail: String::new(),
        syntax_errors: false,
        classes: Vec::new(),
        classes_dropped: 0,
        units: Vec::new(),
        file,
    };
    for (class, rc) in module.classes.iter().zip(&nodes) {
        let facts = rm.class_facts_for(rc);
        let mut local = Vec::new();
        rm.local_imports(&rc.def.body, &mut local);
        out.classes.push(class_row(
            &out.file.path,
            source,
            &module,
            class,
            Measured {
                fingerprint: rm.fingerprint(rc, &facts),
                local_imports: local,
                metrics: rm.class_metrics(rc, &facts),
            },
            &bindings,
            &module_level,
            project,
        ));
    }
    let at: Vec<ClassAt<'_>> = nodes
        .iter()
        .zip(&out.classes)
        .map(|(rc, row)| ClassAt {
            def: rc.def,
            start: rc.start,
            id: row.id,
            nested: row.qualname.contains('.'),
        })
        .collect();
    let (units, closures) = plan(rm, &at, project);
    for (row, closure) in out.classes.iter_mut().zip(closures) {
        row.closure = closure;
    }
    out.units = units;
    resolve(&mut out);
    out
}

fn resolve(out: &mut FileResult) {
    let mut scope: Vec<Inheritance<'_>> = out
        .classes
        .iter_mut()
        .map(|c| Inheritance {
            name: &c.name,
            metrics: &mut c.metrics,
        })
        .collect();
    resolve_inheritance(&mut scope);
}

/// What a front end measures of one class.
struct Measured {
    fingerprint: Fingerprint,
    local_imports: Vec<String>,
    metrics: ClassMetrics,
}

/// [`analyse_source`] with tree-sitter only.
pub fn analyse_source_tree_sitter(
    file: SourceFile,
    hash: String,
    source: &str,
    project: &BTreeSet<String>,
) -> FileResult {
    let Some(tree) = parse_tree(source) else {
        return FileResult::dropped(file, hash, "unparsable", "tree-sitter gave up".into());
    };
    let module = module_from_tree(source, &tree);
    let src = source.as_bytes();
    let root = tree.root_node();
    let (bindings, module_level) = module_bindings(root, src);
    let mut out = FileResult {
        hash,
        reason: None,
        detail: String::new(),
        syntax_errors: !module.parses(),
        classes: Vec::new(),
        classes_dropped: 0,
        units: Vec::new(),
        file,
    };
    if out.syntax_errors {
        out.detail = format!("syntax error at line {}", module.error_lines[0]);
    }
    for class in &module.classes {
        if module
            .error_lines
            .iter()
            .any(|l| (class.start_line..=class.end_line).contains(l))
        {
            out.classes_dropped += 1;
            continue;
        }
        let Some((node, outer)) = class_node(root, class) else {
            out.classes_dropped += 1;
            continue;
        };
        let measured = Measured {
            fingerprint: fingerprint(node, src),
            local_imports: local_imports(node, src),
            metrics: class_metrics(source, node, outer),
        };
        out.classes.push(class_row(
            &out.file.path,
            source,
            &module,
            class,
            measured,
            &bindings,
            &module_level,
            project,
        ));
    }
    resolve(&mut out);
    out
}

#[allow(clippy::too_many_arguments)]
fn class_row(
    path: &str,
    source: &str,
    module: &crate::analysis::Module,
    class: &Class,
    measured: Measured,
    bindings: &BTreeMap<String, String>,
    module_level: &BTreeSet<String>,
    project: &BTreeSet<String>,
) -> ClassRow {
    let Measured {
        fingerprint,
        local_imports,
        mut metrics,
    } = measured;
    // A coupled class is the project's own when defined in this file or imported from one
    // of the project's modules (relative, or a top-level name of the repository).
    coupled_modified(&mut metrics, |name| match bindings.get(name) {
        Some(module) => origin(module, project) == Origin::Project,
        None => module_level.contains(name),
    });
    let mut modules: BTreeSet<String> = fingerprint
        .names
        .iter()
        .filter_map(|n| bindings.get(n).cloned())
        .collect();
    modules.extend(local_imports);
    let module_names: Vec<String> = fingerprint
        .names
        .iter()
        .filter(|n| module_level.contains(*n) && **n != class.name && !bindings.contains_key(*n))
        .cloned()
        .collect();
    // The ruff front end replaces this with the class's closure; a file only tree-sitter reads
    // (ruff rejects it) never ran under Python 3.
    let closure = ClassClosure::unparsed(classify(modules.iter().map(String::as_str), project));
    let id_key = format!("{path}\0{}\0{}", class.qualified_name, class.start_byte);
    ClassRow {
        id: (fnv64(id_key.as_bytes()) & (i64::MAX as u64)) as i64,
        qualname: class.qualified_name.clone(),
        name: class.name.clone(),
        line: class.header_line,
        end_line: class.end_line,
        code: dedented(source, class.start_byte, class.end_byte),
        skeleton: skeleton::skeleton_of(source, module, class),
        docstring: class.docstring.clone(),
        methods: class
            .methods
            .iter()
            .map(|m| MethodRow {
                name: m.name.clone(),
                signature: m.signature.clone(),
                docstring: m.docstring.clone(),
                line: m.start_line,
                end_line: m.end_line,
                decorators: m.decorators.clone(),
            })
            .collect(),
        edges: class_graph(class).edges(),
        bases: class.bases.clone(),
        imports: modules.into_iter().collect(),
        module_names,
        closure,
        metrics,
        fingerprint,
    }
}

/// The `class_definition` node of a class and its outer node (with decorators).
fn class_node<'t>(root: Node<'t>, class: &Class) -> Option<(Node<'t>, Node<'t>)> {
    let mut node = root.descendant_for_byte_range(class.header_byte, class.header_byte)?;
    while node.kind() != "class_definition" || node.start_byte() != class.header_byte {
        node = node.parent()?;
    }
    let outer = match node.parent() {
        Some(p) if p.kind() == "decorated_definition" => p,
        _ => node,
    };
    Some((node, outer))
}

/// The class's text from the start of its first line, its indentation removed (a nested
/// class reads as a top-level one).
fn dedented(source: &str, start: usize, end: usize) -> String {
    let line_start = source[..start.min(source.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let indent = &source[line_start..start.min(source.len())];
    let body = source.get(line_start..end.min(source.len())).unwrap_or("");
    if indent.is_empty() || !indent.chars().all(|c| c == ' ' || c == '\t') {
        return source.get(start..end).unwrap_or("").to_string();
    }
    body.split('\n')
        .map(|l| l.strip_prefix(indent).unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Module-level names: what each import binds (name → module), and every other name defined
/// at module level (functions, classes, assignments). Imports under `if`/`try` count.
fn module_bindings(root: Node<'_>, src: &[u8]) -> (BTreeMap<String, String>, BTreeSet<String>) {
    let mut imports = BTreeMap::new();
    let mut defined = BTreeSet::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        let stmts: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        for stmt in stmts {
            match stmt.kind() {
                "import_statement" | "import_from_statement" => {
                    for (name, module) in import_bindings(stmt, src) {
                        imports.insert(name, module);
                    }
                }
                "function_definition" | "class_definition" => {
                    if let Some(n) = stmt.child_by_field_name("name") {
                        defined.insert(text(n, src).to_string());
                    }
                }
                "decorated_definition" => {
                    if let Some(n) = stmt
                        .child_by_field_name("definition")
                        .and_then(|d| d.child_by_field_name("name"))
                    {
                        defined.insert(text(n, src).to_string());
                    }
                }
                "expression_statement" => {
                    if let Some(a) = stmt.named_child(0).filter(|a| a.kind() == "assignment")
                        && let Some(l) = a.child_by_field_name("left")
                        && l.kind() == "identifier"
                    {
                        defined.insert(text(l, src).to_string());
                    }
                }
                "if_statement" | "try_statement" | "block" | "else_clause" | "elif_clause"
                | "except_clause" | "finally_clause" | "with_statement" => stack.push(stmt),
                _ => {}
            }
        }
    }
    (imports, defined)
}

/// (bound name, module) pairs of one import statement.
fn import_bindings(stmt: Node<'_>, src: &[u8]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let from = stmt
        .child_by_field_name("module_name")
        .map(|m| text(m, src).to_string());
    let mut cursor = stmt.walk();
    for child in stmt.children_by_field_name("name", &mut cursor) {
        let (dotted, alias) = match child.kind() {
            "aliased_import" => (
                child.child_by_field_name("name").map(|n| text(n, src)),
                child.child_by_field_name("alias").map(|n| text(n, src)),
            ),
            _ => (Some(text(child, src)), None),
        };
        let Some(dotted) = dotted else { continue };
        match &from {
            Some(m) => {
                let bound = alias.unwrap_or(dotted);
                out.push((bound.to_string(), m.clone()));
            }
            None => {
                let bound = alias.unwrap_or_else(|| dotted.split('.').next().unwrap_or(dotted));
                out.push((bound.to_string(), dotted.to_string()));
            }
        }
    }
    out
}

/// Modules imported inside the class (in its body or its methods).
fn local_imports(class: Node<'_>, src: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![class];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "import_statement" | "import_from_statement" => {
                out.extend(import_bindings(node, src).into_iter().map(|(_, m)| m));
            }
            "class_definition"
            | "function_definition"
            | "decorated_definition"
            | "block"
            | "if_statement"
            | "try_statement"
            | "with_statement"
            | "for_statement"
            | "while_statement"
            | "else_clause"
            | "elif_clause"
            | "except_clause"
            | "finally_clause" => {
                let mut cursor = node.walk();
                stack.extend(node.named_children(&mut cursor));
            }
            _ => {}
        }
    }
    out
}

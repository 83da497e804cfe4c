//! Self-containment: the modules a class depends on, sorted into the standard library,
//! third-party packages and the project's own modules.

use std::collections::BTreeSet;

/// Top-level modules of the standard library (Python 3.11's `sys.stdlib_module_names`, public
/// ones, plus `__future__` and `_thread`).
const STDLIB: &[&str] = &[
    "__future__",
    "_thread",
    "abc",
    "aifc",
    "antigravity",
    "argparse",
    "array",
    "ast",
    "asynchat",
    "asyncio",
    "asyncore",
    "atexit",
    "audioop",
    "base64",
    "bdb",
    "binascii",
    "bisect",
    "builtins",
    "bz2",
    "cProfile",
    "calendar",
    "cgi",
    "cgitb",
    "chunk",
    "cmath",
    "cmd",
    "code",
    "codecs",
    "codeop",
    "collections",
    "colorsys",
    "compileall",
    "concurrent",
    "configparser",
    "contextlib",
    "contextvars",
    "copy",
    "copyreg",
    "crypt",
    "csv",
    "ctypes",
    "curses",
    "dataclasses",
    "datetime",
    "dbm",
    "decimal",
    "difflib",
    "dis",
    "distutils",
    "doctest",
    "email",
    "encodings",
    "ensurepip",
    "enum",
    "errno",
    "faulthandler",
    "fcntl",
    "filecmp",
    "fileinput",
    "fnmatch",
    "fractions",
    "ftplib",
    "functools",
    "gc",
    "genericpath",
    "getopt",
    "getpass",
    "gettext",
    "glob",
    "graphlib",
    "grp",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "http",
    "idlelib",
    "imaplib",
    "imghdr",
    "imp",
    "importlib",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "keyword",
    "lib2to3",
    "linecache",
    "locale",
    "logging",
    "lzma",
    "mailbox",
    "mailcap",
    "marshal",
    "math",
    "mimetypes",
    "mmap",
    "modulefinder",
    "msilib",
    "msvcrt",
    "multiprocessing",
    "netrc",
    "nis",
    "nntplib",
    "nt",
    "ntpath",
    "nturl2path",
    "numbers",
    "opcode",
    "operator",
    "optparse",
    "os",
    "ossaudiodev",
    "pathlib",
    "pdb",
    "pickle",
    "pickletools",
    "pipes",
    "pkgutil",
    "platform",
    "plistlib",
    "poplib",
    "posix",
    "posixpath",
    "pprint",
    "profile",
    "pstats",
    "pty",
    "pwd",
    "py_compile",
    "pyclbr",
    "pydoc",
    "pydoc_data",
    "pyexpat",
    "queue",
    "quopri",
    "random",
    "re",
    "readline",
    "reprlib",
    "resource",
    "rlcompleter",
    "runpy",
    "sched",
    "secrets",
    "select",
    "selectors",
    "shelve",
    "shlex",
    "shutil",
    "signal",
    "site",
    "smtpd",
    "smtplib",
    "sndhdr",
    "socket",
    "socketserver",
    "spwd",
    "sqlite3",
    "sre_compile",
    "sre_constants",
    "sre_parse",
    "ssl",
    "stat",
    "statistics",
    "string",
    "stringprep",
    "struct",
    "subprocess",
    "sunau",
    "symtable",
    "sys",
    "sysconfig",
    "syslog",
    "tabnanny",
    "tarfile",
    "telnetlib",
    "tempfile",
    "termios",
    "textwrap",
    "this",
    "threading",
    "time",
    "timeit",
    "tkinter",
    "token",
    "tokenize",
    "tomllib",
    "trace",
    "traceback",
    "tracemalloc",
    "tty",
    "turtle",
    "turtledemo",
    "types",
    "typing",
    "unicodedata",
    "unittest",
    "urllib",
    "uu",
    "uuid",
    "venv",
    "warnings",
    "wave",
    "weakref",
    "webbrowser",
    "winreg",
    "winsound",
    "wsgiref",
    "xdrlib",
    "xml",
    "xmlrpc",
    "zipapp",
    "zipfile",
    "zipimport",
    "zlib",
    "zoneinfo",
];

pub fn is_stdlib(top: &str) -> bool {
    STDLIB.binary_search(&top).is_ok()
}

/// The dependencies of one class, each list sorted and distinct.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Deps {
    pub stdlib: Vec<String>,
    pub third_party: Vec<String>,
    pub internal: Vec<String>,
}

impl Deps {
    /// Nothing but the standard library.
    pub fn self_contained(&self) -> bool {
        self.third_party.is_empty() && self.internal.is_empty()
    }
}

/// Sort imported modules: relative imports and the project's own top-level names are internal,
/// standard modules stdlib, anything else third-party. `module_names` (names the class uses
/// from its own module) are internal too, as `.name`.
pub fn classify<'a>(
    modules: impl IntoIterator<Item = &'a str>,
    module_names: &[String],
    project: &BTreeSet<String>,
) -> Deps {
    let (mut std, mut third, mut internal) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    for m in modules {
        let top = m.split('.').next().unwrap_or(m);
        if m.starts_with('.') || project.contains(top) {
            internal.insert(m.to_string());
        } else if is_stdlib(top) {
            std.insert(m.to_string());
        } else {
            third.insert(m.to_string());
        }
    }
    internal.extend(module_names.iter().map(|n| format!(".{n}")));
    Deps {
        stdlib: std.into_iter().collect(),
        third_party: third.into_iter().collect(),
        internal: internal.into_iter().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_sorted_for_binary_search() {
        assert!(STDLIB.windows(2).all(|w| w[0] < w[1]));
        assert!(is_stdlib("os") && is_stdlib("collections") && !is_stdlib("numpy"));
    }

    #[test]
    fn sorts_modules() {
        let project: BTreeSet<String> = ["mypkg".to_string()].into();
        let d = classify(
            ["os.path", "numpy", "mypkg.util", ".sibling"],
            &["helper".to_string()],
            &project,
        );
        assert_eq!(d.stdlib, ["os.path"]);
        assert_eq!(d.third_party, ["numpy"]);
        assert_eq!(d.internal, [".helper", ".sibling", "mypkg.util"]);
        assert!(!d.self_contained());
        assert!(classify(["re"], &[], &project).self_contained());
    }
}

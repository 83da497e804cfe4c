//! User configuration: `config.toml` in the XDG config directory
//! (`directories::ProjectDirs::from("", "", "classlab").config_dir()`).
//!
//! ```toml
//! theme = "dark"            # dark | light | high-contrast | a theme in <config dir>/themes/
//! python = "/usr/bin/python3"  # the interpreter that runs tests (`--python` overrides)
//! default_endpoint = "local"  # the profile the TUI's new-run dialog starts with
//!
//! [keys]                    # key → action name; adds to (or replaces) the default bindings
//! "ctrl-n" = "down"
//! "ctrl-p" = "up"
//!
//! [endpoints.local]         # an OpenAI-compatible server; `--endpoint local` picks it
//! base_url = "http://127.0.0.1:8080/v1"
//! model = "qwen2.5-coder-7b-instruct"
//! max_concurrent = 2        # requests in flight at once (default 4)
//!
//! [endpoints.openai]
//! base_url = "https://api.openai.com/v1"
//! model = "gpt-4o-mini"
//! api_key_env = "OPENAI_API_KEY"  # sent as `Authorization: Bearer …`; omit for no key
//! request_timeout_s = 600   # a whole non-streamed answer (default 600)
//! idle_timeout_s = 60       # no new bytes while streaming (default 60)
//! connect_timeout_s = 10    # (default 10)
//! max_retries = 4           # attempts beyond the first (default 4)
//!
//! [rigor]                   # curation gates on the strength of a task's tests (`classlab rigor`)
//! branch_coverage = 80      # R1 below this percent of branches taken (default 80)
//! mutation_score = 80       # R2 below this percent of mutants killed (default 80)
//! ```
//!
//! `default_endpoint` only chooses what the TUI's new-run dialog starts with (`classlab run`
//! still takes `--endpoint`); without it, a config with exactly one profile starts with that
//! one, and otherwise the dialog starts with no profile and empty fields.
//!
//! Unknown top-level keys are ignored so later sections can be added without breaking older
//! binaries; an unknown key inside an endpoint profile is an error (a typo there would
//! silently change which server or model answers). A malformed file is an error naming the file,
//! line and column, for every command: the CLI loads the file once, first ([`init`]), and stops
//! there with that error; everything after reads the loaded value ([`current`]). A missing file
//! is the defaults.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::Deserialize;

/// The parsed configuration. Every field is optional: an empty file is the defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Theme name; `--theme` overrides it.
    pub theme: Option<String>,
    /// Key string (`"ctrl-n"`, `"J"`, `"pgdown"`) → action name (`"down"`).
    pub keys: BTreeMap<String, String>,
    /// The Python interpreter for tests; `--python` overrides it.
    pub python: Option<PathBuf>,
    /// LLM endpoint profiles by name (`--endpoint NAME`); see `llm::endpoint::resolve`.
    pub endpoints: BTreeMap<String, EndpointConfig>,
    /// The profile the TUI's new-run dialog starts with; see [`Config::default_profile`].
    pub default_endpoint: Option<String>,
    /// The rigor gates of curation (review findings R1, R2).
    pub rigor: RigorGates,
}

/// `[rigor]`: a task whose tests fall below a gate gets a review finding (docs/rigor.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RigorGates {
    /// R1: branch coverage of the reference by its tests below this percent.
    pub branch_coverage: u32,
    /// R2: mutation score below this percent.
    pub mutation_score: u32,
}

impl RigorGates {
    pub const DEFAULT: RigorGates = RigorGates {
        branch_coverage: 80,
        mutation_score: 80,
    };
}

impl Default for RigorGates {
    fn default() -> Self {
        RigorGates::DEFAULT
    }
}

impl Config {
    /// The profile a new run starts with: `default_endpoint` when it names one, else the only
    /// profile when there is exactly one, else none.
    pub fn default_profile(&self) -> Option<&str> {
        match &self.default_endpoint {
            Some(name) => self.endpoints.get_key_value(name).map(|(k, _)| k.as_str()),
            None if self.endpoints.len() == 1 => self.endpoints.keys().next().map(String::as_str),
            None => None,
        }
    }
}

/// One `[endpoints.<name>]` profile as written; `llm::endpoint` fills in the defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndpointConfig {
    /// `http://host:port/v1`: requests go to `<base_url>/chat/completions`.
    pub base_url: Option<String>,
    pub model: Option<String>,
    /// The environment variable holding the API key; none means no `Authorization` header.
    pub api_key_env: Option<String>,
    pub max_concurrent: Option<usize>,
    pub request_timeout_s: Option<u64>,
    pub idle_timeout_s: Option<u64>,
    pub connect_timeout_s: Option<u64>,
    pub max_retries: Option<u32>,
}

/// A config file that could not be read or parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    pub path: String,
    /// 1-based; `None` when the error is not about a position (unreadable file).
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ConfigError {}

/// 1-based line and column of a byte offset (columns count characters).
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// Parse config text; `path` is only used to name the file in errors.
pub fn parse(path: &str, text: &str) -> Result<Config, ConfigError> {
    toml::from_str::<Config>(text).map_err(|err| {
        let (line, column) = match err.span() {
            Some(span) => {
                let (l, c) = line_column(text, span.start);
                (Some(l), Some(c))
            }
            None => (None, None),
        };
        ConfigError {
            path: path.to_string(),
            line,
            column,
            message: err.message().trim().to_string(),
        }
    })
}

/// classlab's configuration directory, when the platform has one.
pub fn config_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "classlab").map(|d| d.config_dir().to_path_buf())
}

/// `<config dir>/config.toml`.
pub fn config_path() -> Option<PathBuf> {
    config_dir().map(|d| d.join("config.toml"))
}

/// [`config_path`] as messages show it.
pub fn shown_path() -> String {
    config_path().map_or_else(|| "the config file".into(), |p| p.display().to_string())
}

/// Read and parse a config file; a missing file is the defaults, not an error.
pub fn load_from(path: &Path) -> Result<Config, ConfigError> {
    let shown = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => parse(&shown, &text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
        Err(e) => Err(ConfigError {
            path: shown,
            line: None,
            column: None,
            message: format!("cannot read: {e}"),
        }),
    }
}

/// Load the user's config: the defaults when there is no config directory or file.
pub fn load() -> Result<Config, ConfigError> {
    match config_path() {
        Some(path) => load_from(&path),
        None => Ok(Config::default()),
    }
}

/// The config of this process, once [`init`] has read it.
static LOADED: OnceLock<Config> = OnceLock::new();

/// The defaults, for [`current`] before [`init`].
static DEFAULTS: Config = Config {
    theme: None,
    keys: BTreeMap::new(),
    python: None,
    endpoints: BTreeMap::new(),
    default_endpoint: None,
    rigor: RigorGates::DEFAULT,
};

/// Load the user's config for this process, once: the first successful call reads the file,
/// later calls return the same value. The CLI calls this before any command runs, so a
/// malformed file stops every command (and the TUI) with this error.
pub fn init() -> Result<&'static Config, ConfigError> {
    if let Some(config) = LOADED.get() {
        return Ok(config);
    }
    let config = load()?;
    Ok(LOADED.get_or_init(|| config))
}

/// The config [`init`] loaded. Until `init` has succeeded (the library used without the CLI:
/// tests, benches) it is the defaults, never a silently half-read file.
pub fn current() -> &'static Config {
    LOADED.get().unwrap_or(&DEFAULTS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_theme_and_keys() {
        let c = parse(
            "c.toml",
            "theme = \"light\"\n[keys]\n\"ctrl-n\" = \"down\"\n",
        )
        .unwrap();
        assert_eq!(c.theme.as_deref(), Some("light"));
        assert_eq!(c.keys.get("ctrl-n").map(String::as_str), Some("down"));
    }

    #[test]
    fn empty_and_unknown_sections_are_fine() {
        assert_eq!(parse("c.toml", "").unwrap(), Config::default());
        let c = parse("c.toml", "[llm.local]\nurl = \"http://x\"\n").unwrap();
        assert_eq!(c, Config::default());
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let err = parse(
            "/home/u/.config/classlab/config.toml",
            "theme = \"dark\"\n[keys\n",
        )
        .unwrap_err();
        assert_eq!(err.line, Some(2), "{err}");
        assert!(
            err.to_string()
                .starts_with("/home/u/.config/classlab/config.toml:2:"),
            "{err}"
        );
        let err = parse("c.toml", "theme = 3\n").unwrap_err();
        assert_eq!((err.line, err.column), (Some(1), Some(9)), "{err}");
        let err = parse("c.toml", "[keys]\n\"j\" = 1\n").unwrap_err();
        assert_eq!(err.line, Some(2), "{err}");
    }

    #[test]
    fn parses_endpoint_profiles() {
        let c = parse(
            "c.toml",
            "[endpoints.local]\nbase_url = \"http://127.0.0.1:8080/v1\"\nmodel = \"m\"\n\
             max_concurrent = 2\n[endpoints.oa]\napi_key_env = \"K\"\nidle_timeout_s = 5\n",
        )
        .unwrap();
        let local = &c.endpoints["local"];
        assert_eq!(local.base_url.as_deref(), Some("http://127.0.0.1:8080/v1"));
        assert_eq!(local.model.as_deref(), Some("m"));
        assert_eq!(local.max_concurrent, Some(2));
        assert_eq!(c.endpoints["oa"].api_key_env.as_deref(), Some("K"));
        assert_eq!(c.endpoints["oa"].idle_timeout_s, Some(5));
    }

    #[test]
    fn unknown_endpoint_keys_name_the_position() {
        let err = parse(
            "c.toml",
            "theme = \"dark\"\n[endpoints.local]\nmodel = \"m\"\nbase_ulr = \"http://x\"\n",
        )
        .unwrap_err();
        assert_eq!((err.line, err.column), (Some(4), Some(1)), "{err}");
        assert!(err.message.contains("base_ulr"), "{err}");
        let err = parse("c.toml", "[endpoints.a]\nmax_concurrent = \"2\"\n").unwrap_err();
        assert_eq!(err.line, Some(2), "{err}");
    }

    #[test]
    fn the_default_profile() {
        let one = parse("c.toml", "[endpoints.a]\nmodel = \"m\"\n").unwrap();
        assert_eq!(one.default_profile(), Some("a"));
        let two = "[endpoints.a]\nmodel = \"m\"\n[endpoints.b]\nmodel = \"n\"\n";
        assert_eq!(parse("c.toml", two).unwrap().default_profile(), None);
        let chosen = format!("default_endpoint = \"b\"\n{two}");
        assert_eq!(
            parse("c.toml", &chosen).unwrap().default_profile(),
            Some("b")
        );
        // A name that is no profile chooses none (the dialog then asks for a base URL).
        let wrong = format!("default_endpoint = \"c\"\n{two}");
        assert_eq!(parse("c.toml", &wrong).unwrap().default_profile(), None);
    }

    #[test]
    fn missing_file_is_the_defaults() {
        let c = load_from(Path::new("/nonexistent/classlab/config.toml")).unwrap();
        assert_eq!(c, Config::default());
    }

    #[test]
    fn current_is_the_defaults_before_init() {
        // Unit tests never call `init` (it would read the developer's own config).
        assert_eq!(current(), &Config::default());
    }

    #[test]
    fn line_column_counts_characters() {
        assert_eq!(line_column("ab\ncé\nx", 6), (2, 3));
        assert_eq!(line_column("", 10), (1, 1));
    }
}

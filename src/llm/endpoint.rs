//! Endpoint profiles: which OpenAI-compatible server and model answer, with what key,
//! concurrency, timeouts and retries. Profiles come from `[endpoints.<name>]` in the config
//! file (`crate::config`); command-line flags override them ([`resolve`]).

use std::time::Duration;

use super::retry::RetryPolicy;
use crate::config::{Config, EndpointConfig};

/// Everything the client needs to talk to one server.
#[derive(Debug, Clone, PartialEq)]
pub struct Endpoint {
    /// The profile name (or [`Endpoint::COMMAND_LINE`] when only flags were given).
    pub name: String,
    /// `http://host:port/v1`; requests go to `<base_url>/chat/completions`.
    pub base_url: String,
    pub model: String,
    /// The environment variable holding the API key; `None` sends no `Authorization` header.
    pub api_key_env: Option<String>,
    /// Requests in flight at once through one client.
    pub max_concurrent: usize,
    /// A whole non-streamed request, or the wait for a stream's response headers.
    pub request_timeout: Duration,
    /// Longest silence (no new bytes) while streaming.
    pub idle_timeout: Duration,
    pub connect_timeout: Duration,
    pub retry: RetryPolicy,
}

impl Endpoint {
    pub const DEFAULT_MAX_CONCURRENT: usize = 4;
    pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(600);
    pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
    pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
    /// The name of an endpoint given only by `--base-url` and `--model`.
    pub const COMMAND_LINE: &'static str = "command-line";

    /// An endpoint with the default concurrency, timeouts and retry policy.
    pub fn new(
        name: impl Into<String>,
        base_url: impl Into<String>,
        model: impl Into<String>,
    ) -> Self {
        Endpoint {
            name: name.into(),
            base_url: base_url.into(),
            model: model.into(),
            api_key_env: None,
            max_concurrent: Self::DEFAULT_MAX_CONCURRENT,
            request_timeout: Self::DEFAULT_REQUEST_TIMEOUT,
            idle_timeout: Self::DEFAULT_IDLE_TIMEOUT,
            connect_timeout: Self::DEFAULT_CONNECT_TIMEOUT,
            retry: RetryPolicy::default(),
        }
    }

    /// `<base_url>/chat/completions`, whether or not the base URL ends in a slash.
    pub fn chat_url(&self) -> String {
        format!(
            "{}/chat/completions",
            self.base_url.trim().trim_end_matches('/')
        )
    }
}

/// The command-line flags that choose an endpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EndpointFlags {
    /// `--endpoint NAME`: a profile of the config file.
    pub endpoint: Option<String>,
    /// `--base-url`, `--model`, `--api-key-env`: override the profile (or stand alone).
    /// An empty `--api-key-env ""` removes a profile's key.
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub api_key_env: Option<String>,
}

/// Why no endpoint could be chosen. Every message names the config file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointError {
    #[error(
        "no endpoint profile {name:?} in {config_path} ({})",
        known_names(known)
    )]
    UnknownProfile {
        name: String,
        config_path: String,
        known: Vec<String>,
    },
    #[error(
        "no endpoint chosen: pass --endpoint NAME for a profile in {config_path} ({}), \
         or --base-url and --model",
        known_names(known)
    )]
    NoneChosen {
        config_path: String,
        known: Vec<String>,
    },
    #[error("{origin} has no {field}: set `{field} = \"…\"` in {config_path} or pass --{flag}")]
    Incomplete {
        origin: String,
        field: &'static str,
        flag: &'static str,
        config_path: String,
    },
    #[error("{origin}: {problem} (in {config_path} or the flags)")]
    Invalid {
        origin: String,
        problem: String,
        config_path: String,
    },
}

fn known_names(known: &[String]) -> String {
    if known.is_empty() {
        "it defines none; add an [endpoints.NAME] table with base_url and model".into()
    } else {
        format!("known: {}", known.join(", "))
    }
}

/// Choose the endpoint for a run: the profile `--endpoint` names, with `--base-url`,
/// `--model` and `--api-key-env` overriding it; or, without `--endpoint`, the flags alone.
/// `config_path` names the config file in errors.
pub fn resolve(
    config: &Config,
    config_path: &str,
    flags: &EndpointFlags,
) -> Result<Endpoint, EndpointError> {
    let known = || config.endpoints.keys().cloned().collect::<Vec<_>>();
    let empty = EndpointConfig::default();
    let (name, profile, origin) = match &flags.endpoint {
        Some(name) => match config.endpoints.get(name) {
            Some(profile) => (name.clone(), profile, format!("endpoint profile {name:?}")),
            None => {
                return Err(EndpointError::UnknownProfile {
                    name: name.clone(),
                    config_path: config_path.into(),
                    known: known(),
                });
            }
        },
        None if flags.base_url.is_none() && flags.model.is_none() => {
            return Err(EndpointError::NoneChosen {
                config_path: config_path.into(),
                known: known(),
            });
        }
        None => (
            Endpoint::COMMAND_LINE.to_string(),
            &empty,
            "the command line".to_string(),
        ),
    };
    let pick = |flag: &Option<String>, from_profile: &Option<String>| {
        flag.clone()
            .or_else(|| from_profile.clone())
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    let incomplete = |field, flag| EndpointError::Incomplete {
        origin: origin.clone(),
        field,
        flag,
        config_path: config_path.into(),
    };
    let invalid = |problem: String| EndpointError::Invalid {
        origin: origin.clone(),
        problem,
        config_path: config_path.into(),
    };
    let base_url = pick(&flags.base_url, &profile.base_url)
        .ok_or_else(|| incomplete("base_url", "base-url"))?;
    let model = pick(&flags.model, &profile.model).ok_or_else(|| incomplete("model", "model"))?;
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        return Err(invalid(format!(
            "base_url {base_url:?} must start with http:// or https://"
        )));
    }
    let mut endpoint = Endpoint::new(name, base_url, model);
    endpoint.api_key_env = pick(&flags.api_key_env, &profile.api_key_env);
    if let Some(n) = profile.max_concurrent {
        if n == 0 {
            return Err(invalid("max_concurrent must be at least 1".into()));
        }
        endpoint.max_concurrent = n;
    }
    let seconds = |value: Option<u64>, field: &str, default: Duration| match value {
        Some(0) => Err(invalid(format!("{field} must be at least 1"))),
        Some(s) => Ok(Duration::from_secs(s)),
        None => Ok(default),
    };
    endpoint.request_timeout = seconds(
        profile.request_timeout_s,
        "request_timeout_s",
        endpoint.request_timeout,
    )?;
    endpoint.idle_timeout = seconds(
        profile.idle_timeout_s,
        "idle_timeout_s",
        endpoint.idle_timeout,
    )?;
    endpoint.connect_timeout = seconds(
        profile.connect_timeout_s,
        "connect_timeout_s",
        endpoint.connect_timeout,
    )?;
    if let Some(n) = profile.max_retries {
        endpoint.retry.max_retries = n;
    }
    Ok(endpoint)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATH: &str = "/home/u/.config/classlab/config.toml";

    fn config(text: &str) -> Config {
        crate::config::parse(PATH, text).unwrap()
    }

    fn flags(endpoint: Option<&str>, base_url: Option<&str>, model: Option<&str>) -> EndpointFlags {
        EndpointFlags {
            endpoint: endpoint.map(str::to_string),
            base_url: base_url.map(str::to_string),
            model: model.map(str::to_string),
            api_key_env: None,
        }
    }

    const PROFILES: &str = "[endpoints.local]\nbase_url = \"http://127.0.0.1:8080/v1/\"\n\
        model = \"coder\"\nmax_concurrent = 2\nidle_timeout_s = 5\nmax_retries = 1\n\
        [endpoints.oa]\nbase_url = \"https://api.openai.com/v1\"\nmodel = \"gpt\"\n\
        api_key_env = \"OPENAI_API_KEY\"\n";

    #[test]
    fn profile_with_defaults() {
        let e = resolve(&config(PROFILES), PATH, &flags(Some("local"), None, None)).unwrap();
        assert_eq!(e.name, "local");
        assert_eq!(e.chat_url(), "http://127.0.0.1:8080/v1/chat/completions");
        assert_eq!(e.model, "coder");
        assert_eq!(e.api_key_env, None);
        assert_eq!(e.max_concurrent, 2);
        assert_eq!(e.idle_timeout, Duration::from_secs(5));
        assert_eq!(e.request_timeout, Endpoint::DEFAULT_REQUEST_TIMEOUT);
        assert_eq!(e.connect_timeout, Endpoint::DEFAULT_CONNECT_TIMEOUT);
        assert_eq!(e.retry.max_retries, 1);
        assert_eq!(e.retry.base, RetryPolicy::default().base);
    }

    #[test]
    fn flags_override_the_profile() {
        let mut f = flags(Some("oa"), Some("http://proxy:1/v1"), Some("gpt-x"));
        f.api_key_env = Some("MY_KEY".into());
        let e = resolve(&config(PROFILES), PATH, &f).unwrap();
        assert_eq!(
            (e.base_url.as_str(), e.model.as_str()),
            ("http://proxy:1/v1", "gpt-x")
        );
        assert_eq!(e.api_key_env.as_deref(), Some("MY_KEY"));
        f.api_key_env = Some(String::new());
        assert_eq!(
            resolve(&config(PROFILES), PATH, &f).unwrap().api_key_env,
            None
        );
    }

    #[test]
    fn flags_alone() {
        let e = resolve(
            &Config::default(),
            PATH,
            &flags(None, Some("http://h:9/v1"), Some("m")),
        )
        .unwrap();
        assert_eq!(
            e,
            Endpoint::new(Endpoint::COMMAND_LINE, "http://h:9/v1", "m")
        );
    }

    #[test]
    fn errors_name_the_config_file_and_the_fix() {
        let table: [(&str, EndpointFlags, &[&str]); 7] = [
            (
                PROFILES,
                flags(Some("remote"), None, None),
                &["\"remote\"", PATH, "known: local, oa"],
            ),
            ("", flags(Some("x"), None, None), &[PATH, "defines none"]),
            (
                PROFILES,
                flags(None, None, None),
                &[
                    "--endpoint NAME",
                    PATH,
                    "known: local, oa",
                    "--base-url and --model",
                ],
            ),
            (
                "",
                flags(None, Some("http://h/v1"), None),
                &["the command line has no model", "--model"],
            ),
            (
                "[endpoints.half]\nmodel = \"m\"\n",
                flags(Some("half"), None, None),
                &["profile \"half\" has no base_url", PATH, "--base-url"],
            ),
            (
                "",
                flags(None, Some("127.0.0.1:8080/v1"), Some("m")),
                &["must start with http://"],
            ),
            (
                "[endpoints.z]\nbase_url = \"http://h\"\nmodel = \"m\"\nmax_concurrent = 0\n",
                flags(Some("z"), None, None),
                &["max_concurrent must be at least 1", PATH],
            ),
        ];
        for (text, f, needles) in table {
            let err = resolve(&config(text), PATH, &f).unwrap_err().to_string();
            for needle in needles {
                assert!(err.contains(needle), "{err:?} lacks {needle:?}");
            }
        }
    }

    #[test]
    fn chat_url_tolerates_slashes() {
        for base in [
            "http://h/v1",
            "http://h/v1/",
            "http://h/v1//",
            " http://h/v1 ",
        ] {
            assert_eq!(
                Endpoint::new("n", base, "m").chat_url(),
                "http://h/v1/chat/completions"
            );
        }
    }
}

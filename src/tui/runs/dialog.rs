//! The new-run dialog: a small form (strategy, provider, endpoint and its settings, tasks, TDD
//! settings) whose values become a [`RunSetup`], the TUI's description of a run for `jobs` to
//! start. Choosing an endpoint profile fills in its base URL, model and API-key variable (each
//! editable: a value typed overrides the profile's, as `classlab run --base-url …` does).

use std::path::PathBuf;

use crate::config::EndpointConfig;
use crate::model::Strategy;

pub const STRATEGIES: [Strategy; 4] = [
    Strategy::Holistic,
    Strategy::Incremental,
    Strategy::Compositional,
    Strategy::Tdd,
];
pub const PROVIDERS: [&str; 3] = ["openai", "reference", "replay"];
pub const SCHEDULES: [&str; 4] = ["predicted", "repaired", "ground-truth", "skeleton"];
/// `split:K` goes up to this K.
pub const MAX_SPLIT: u32 = 8;
const MAX_REPAIRS: u32 = 10;
const MAX_JOBS: usize = 64;

/// What the dialog asks the loop to start.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSetup {
    pub strategy: Strategy,
    /// `openai` | `reference` | `replay`.
    pub provider: String,
    /// A config profile (`[endpoints.NAME]`).
    pub endpoint: Option<String>,
    pub model: Option<String>,
    /// Overrides the profile's (or, with no profile, the whole endpoint).
    pub base_url: Option<String>,
    /// The key's environment variable; `Some("")`: no key (not the profile's).
    pub api_key_env: Option<String>,
    /// Sampling parameters (`classlab run --temperature --max-tokens --seed`); `None`: the
    /// defaults (temperature 0, the server's limit, no seed).
    pub temperature: Option<f32>,
    pub max_tokens: Option<u32>,
    pub seed: Option<u64>,
    /// The session `replay` answers from.
    pub replay_from: Option<PathBuf>,
    /// `None`: every task.
    pub tasks: Option<Vec<String>>,
    pub max_repairs: u32,
    /// A `ScheduleMode` name.
    pub schedule: String,
    /// `doctest` or `split:K`.
    pub public_tests: String,
    /// Tasks at once (0: one per core).
    pub jobs: usize,
}

// The temperature is never NaN ([`NewRunState::setup`] accepts only 0 to 2), so equality is
// reflexive and `Effect` can stay `Eq`.
impl Eq for RunSetup {}

/// Which tasks the run covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaskPick {
    #[default]
    All,
    /// The task selected in the task list.
    Selected,
    /// The ids typed (comma-separated).
    List,
}

/// A row of the form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Field {
    #[default]
    Strategy,
    Provider,
    Endpoint,
    Model,
    BaseUrl,
    ApiKeyEnv,
    Temperature,
    MaxTokens,
    Seed,
    Replay,
    Tasks,
    TaskList,
    MaxRepairs,
    Schedule,
    PublicTests,
    Jobs,
}

impl Field {
    pub fn label(self) -> &'static str {
        match self {
            Field::Strategy => "strategy",
            Field::Provider => "provider",
            Field::Endpoint => "endpoint",
            Field::Model => "model",
            Field::BaseUrl => "base URL",
            Field::ApiKeyEnv => "API key var",
            Field::Temperature => "temperature",
            Field::MaxTokens => "max tokens",
            Field::Seed => "seed",
            Field::Replay => "replay from",
            Field::Tasks => "tasks",
            Field::TaskList => "task ids",
            Field::MaxRepairs => "max repairs",
            Field::Schedule => "schedule",
            Field::PublicTests => "public tests",
            Field::Jobs => "jobs",
        }
    }

    /// Typed characters go into the field.
    pub fn is_text(self) -> bool {
        matches!(
            self,
            Field::Model
                | Field::BaseUrl
                | Field::ApiKeyEnv
                | Field::Temperature
                | Field::MaxTokens
                | Field::Seed
                | Field::TaskList
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRunState {
    pub focus: Field,
    pub strategy: usize,
    pub provider: usize,
    /// Profiles of the config file; choice 0 is none.
    pub endpoints: Vec<String>,
    /// What each of `endpoints` holds (prefills the fields when chosen).
    pub profiles: Vec<EndpointConfig>,
    pub endpoint: usize,
    pub model: String,
    pub base_url: String,
    pub api_key_env: String,
    pub temperature: String,
    pub max_tokens: String,
    pub seed: String,
    /// Generation sessions replay can answer from: (label, directory).
    pub replays: Vec<(String, PathBuf)>,
    pub replay: usize,
    pub tasks: TaskPick,
    pub selected_task: Option<String>,
    pub task_list: String,
    pub max_repairs: u32,
    pub schedule: usize,
    /// 0: doctest, 1: dataset, K + 1: split:K.
    pub public_tests: u32,
    pub jobs: usize,
    /// The endpoints and sessions are being read.
    pub loading: bool,
}

impl Default for NewRunState {
    fn default() -> Self {
        NewRunState {
            focus: Field::Strategy,
            strategy: 3,
            provider: 0,
            endpoints: Vec::new(),
            profiles: Vec::new(),
            endpoint: 0,
            model: String::new(),
            base_url: String::new(),
            api_key_env: String::new(),
            temperature: String::new(),
            max_tokens: String::new(),
            seed: String::new(),
            replays: Vec::new(),
            replay: 0,
            tasks: TaskPick::All,
            selected_task: None,
            task_list: String::new(),
            max_repairs: 3,
            schedule: 0,
            public_tests: 0,
            jobs: 0,
            loading: false,
        }
    }
}

/// `i + delta` cycled within `0..len`.
fn cycle(i: usize, delta: isize, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    let len = len as isize;
    ((i as isize + delta).rem_euclid(len)) as usize
}

impl NewRunState {
    pub fn strategy(&self) -> Strategy {
        STRATEGIES[self.strategy.min(STRATEGIES.len() - 1)]
    }

    pub fn provider(&self) -> &'static str {
        PROVIDERS[self.provider.min(PROVIDERS.len() - 1)]
    }

    /// The rows shown now (what does not apply is hidden).
    pub fn fields(&self) -> Vec<Field> {
        let mut out = vec![Field::Strategy, Field::Provider];
        match self.provider() {
            "openai" => out.extend([
                Field::Endpoint,
                Field::Model,
                Field::BaseUrl,
                Field::ApiKeyEnv,
                Field::Temperature,
                Field::MaxTokens,
                Field::Seed,
            ]),
            "replay" => out.push(Field::Replay),
            _ => {}
        }
        out.push(Field::Tasks);
        if self.tasks == TaskPick::List {
            out.push(Field::TaskList);
        }
        if self.strategy() == Strategy::Tdd {
            out.extend([Field::MaxRepairs, Field::Schedule, Field::PublicTests]);
        }
        out.push(Field::Jobs);
        out
    }

    /// The config's profiles (names and contents) and the one to start with (`default`):
    /// chosen, its values filled in.
    pub fn set_profiles(&mut self, profiles: Vec<(String, EndpointConfig)>, default: Option<&str>) {
        let (names, contents) = profiles.into_iter().unzip();
        self.endpoints = names;
        self.profiles = contents;
        let at = default.and_then(|d| self.endpoints.iter().position(|n| n == d));
        self.choose_endpoint(at.map_or(0, |i| i + 1));
    }

    /// Choose endpoint `i` (0: none) and fill its base URL, model and key variable in (none
    /// empties them: everything is then typed).
    pub fn choose_endpoint(&mut self, i: usize) {
        self.endpoint = i.min(self.endpoints.len());
        let profile = match self.endpoint {
            0 => EndpointConfig::default(),
            i => self.profiles.get(i - 1).cloned().unwrap_or_default(),
        };
        self.base_url = profile.base_url.unwrap_or_default();
        self.model = profile.model.unwrap_or_default();
        self.api_key_env = profile.api_key_env.unwrap_or_default();
    }

    /// The typed text of a text row.
    fn text_mut(&mut self, field: Field) -> Option<&mut String> {
        if !field.is_text() {
            return None;
        }
        Some(match field {
            Field::Model => &mut self.model,
            Field::BaseUrl => &mut self.base_url,
            Field::ApiKeyEnv => &mut self.api_key_env,
            Field::Temperature => &mut self.temperature,
            Field::MaxTokens => &mut self.max_tokens,
            Field::Seed => &mut self.seed,
            _ => &mut self.task_list,
        })
    }

    /// What an empty text row means, shown in its place.
    pub fn placeholder(&self, field: Field) -> Option<&'static str> {
        match field {
            Field::Model if self.endpoint == 0 => Some("needed"),
            Field::Model => Some("the endpoint's"),
            Field::BaseUrl if self.endpoint == 0 => Some("needed: type one, or choose a profile"),
            Field::BaseUrl => Some("the endpoint's"),
            Field::ApiKeyEnv => Some("none (no key sent)"),
            Field::Temperature => Some("0"),
            Field::MaxTokens => Some("the server's limit"),
            Field::Seed => Some("none"),
            _ => None,
        }
    }

    /// Move to the next (`delta` 1) or previous (-1) row.
    pub fn move_focus(&mut self, delta: isize) {
        let fields = self.fields();
        let at = fields.iter().position(|f| *f == self.focus).unwrap_or(0);
        self.focus = fields[cycle(at, delta, fields.len())];
    }

    /// ←/→ on the focused row: the previous or next choice, or one less or more.
    pub fn change(&mut self, delta: isize) {
        match self.focus {
            Field::Strategy => self.strategy = cycle(self.strategy, delta, STRATEGIES.len()),
            Field::Provider => self.provider = cycle(self.provider, delta, PROVIDERS.len()),
            Field::Endpoint => {
                self.choose_endpoint(cycle(self.endpoint, delta, self.endpoints.len() + 1))
            }
            Field::Replay => self.replay = cycle(self.replay, delta, self.replays.len()),
            Field::Tasks => {
                let picks: &[TaskPick] = if self.selected_task.is_some() {
                    &[TaskPick::All, TaskPick::Selected, TaskPick::List]
                } else {
                    &[TaskPick::All, TaskPick::List]
                };
                let at = picks.iter().position(|p| *p == self.tasks).unwrap_or(0);
                self.tasks = picks[cycle(at, delta, picks.len())];
            }
            Field::MaxRepairs => {
                self.max_repairs = self
                    .max_repairs
                    .saturating_add_signed(delta as i32)
                    .min(MAX_REPAIRS)
            }
            Field::Schedule => self.schedule = cycle(self.schedule, delta, SCHEDULES.len()),
            Field::PublicTests => {
                self.public_tests = cycle(self.public_tests as usize, delta, MAX_SPLIT as usize + 2)
                    .try_into()
                    .unwrap_or(0)
            }
            Field::Jobs => self.jobs = self.jobs.saturating_add_signed(delta).min(MAX_JOBS),
            Field::Model
            | Field::BaseUrl
            | Field::ApiKeyEnv
            | Field::Temperature
            | Field::MaxTokens
            | Field::Seed
            | Field::TaskList => {}
        }
    }

    /// A typed character: text for text rows, a digit for number rows, Space cycles choices.
    pub fn input(&mut self, c: char) {
        let focus = self.focus;
        if let Some(text) = self.text_mut(focus) {
            text.push(c);
            return;
        }
        match self.focus {
            Field::MaxRepairs | Field::Jobs => {
                if let Some(d) = c.to_digit(10) {
                    // A digit typed replaces a one-digit value and extends a longer one.
                    if self.focus == Field::MaxRepairs {
                        self.max_repairs = d.min(MAX_REPAIRS);
                    } else {
                        let next = if self.jobs < 10 && self.jobs > 0 {
                            self.jobs * 10 + d as usize
                        } else {
                            d as usize
                        };
                        self.jobs = if next > MAX_JOBS { d as usize } else { next };
                    }
                }
            }
            _ if c == ' ' => self.change(1),
            _ => {}
        }
    }

    pub fn backspace(&mut self) {
        let focus = self.focus;
        if let Some(text) = self.text_mut(focus) {
            text.pop();
        } else if self.focus == Field::Jobs {
            self.jobs /= 10;
        }
    }

    pub fn clear(&mut self) {
        let focus = self.focus;
        if let Some(text) = self.text_mut(focus) {
            text.clear();
        }
    }

    pub fn public_tests_name(&self) -> String {
        match self.public_tests {
            0 => "doctest".into(),
            1 => "dataset".into(),
            k => format!("split:{}", k - 1),
        }
    }

    /// The value a row shows.
    pub fn value(&self, field: Field) -> String {
        match field {
            Field::Strategy => self.strategy().to_string(),
            Field::Provider => self.provider().to_string(),
            Field::Endpoint => match self.endpoint {
                0 => "none (typed below)".into(),
                i => self.endpoints.get(i - 1).cloned().unwrap_or_default(),
            },
            Field::Model => self.model.clone(),
            Field::BaseUrl => self.base_url.clone(),
            Field::ApiKeyEnv => self.api_key_env.clone(),
            Field::Temperature => self.temperature.clone(),
            Field::MaxTokens => self.max_tokens.clone(),
            Field::Seed => self.seed.clone(),
            Field::Replay => match self.replays.get(self.replay) {
                Some((label, _)) => label.clone(),
                None if self.loading => "reading the sessions…".into(),
                None => "no generation session to replay".into(),
            },
            Field::Tasks => match (self.tasks, &self.selected_task) {
                (TaskPick::All, _) => "all".into(),
                (TaskPick::Selected, Some(id)) => format!("the selected: {id}"),
                (TaskPick::Selected, None) => "the selected (none)".into(),
                (TaskPick::List, _) => "a list".into(),
            },
            Field::TaskList => self.task_list.clone(),
            Field::MaxRepairs => self.max_repairs.to_string(),
            Field::Schedule => SCHEDULES[self.schedule.min(SCHEDULES.len() - 1)].to_string(),
            Field::PublicTests => self.public_tests_name(),
            Field::Jobs => match self.jobs {
                0 => "auto (one task per core)".into(),
                n => n.to_string(),
            },
        }
    }

    /// The run to start, or what is missing.
    pub fn setup(&self) -> Result<RunSetup, String> {
        let tasks = match self.tasks {
            TaskPick::All => None,
            TaskPick::Selected => Some(vec![
                self.selected_task
                    .clone()
                    .ok_or("no task is selected in the task list")?,
            ]),
            TaskPick::List => {
                let ids: Vec<String> = self
                    .task_list
                    .split([',', ' '])
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect();
                if ids.is_empty() {
                    return Err("type the task ids, separated by commas".into());
                }
                Some(ids)
            }
        };
        let openai = self.provider() == "openai";
        let replay_from = match self.provider() {
            "replay" => Some(
                self.replays
                    .get(self.replay)
                    .map(|(_, dir)| dir.clone())
                    .ok_or("no generation session to replay: run one first")?,
            ),
            _ => None,
        };
        let typed = |s: &str| {
            let s = s.trim();
            (openai && !s.is_empty()).then(|| s.to_string())
        };
        let (model, base_url) = (typed(&self.model), typed(&self.base_url));
        // An emptied key variable means no key: passed on as empty, so the profile's key
        // variable is not used behind the user's back.
        let api_key_env = openai.then(|| self.api_key_env.trim().to_string());
        if openai && self.endpoint == 0 {
            if base_url.is_none() {
                return Err(if self.endpoints.is_empty() {
                    "a base URL is needed: type one (the config has no [endpoints.NAME] profile)"
                        .into()
                } else {
                    "a base URL is needed: type one, or choose an endpoint profile".into()
                });
            }
            if model.is_none() {
                return Err("a model is needed: type one, or choose an endpoint profile".into());
            }
        }
        let temperature = match typed(&self.temperature) {
            None => None,
            Some(t) => match t.parse::<f32>() {
                Ok(t) if (0.0..=2.0).contains(&t) => Some(t),
                _ => return Err(format!("temperature {t:?}: a number from 0 to 2")),
            },
        };
        let max_tokens = match typed(&self.max_tokens) {
            None => None,
            Some(n) => match n.parse::<u32>() {
                Ok(n) if n > 0 => Some(n),
                _ => return Err(format!("max tokens {n:?}: a whole number above 0")),
            },
        };
        let seed = typed(&self.seed)
            .map(|n| {
                n.parse::<u64>()
                    .map_err(|_| format!("seed {n:?}: a whole number"))
            })
            .transpose()?;
        Ok(RunSetup {
            strategy: self.strategy(),
            provider: self.provider().to_string(),
            endpoint: match self.endpoint {
                0 => None,
                i if openai => self.endpoints.get(i - 1).cloned(),
                _ => None,
            },
            model,
            base_url,
            api_key_env,
            temperature,
            max_tokens,
            seed,
            replay_from,
            tasks,
            max_repairs: self.max_repairs,
            schedule: self.value(Field::Schedule),
            public_tests: self.public_tests_name(),
            jobs: self.jobs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_follow_the_choices() {
        let mut d = NewRunState::default();
        assert_eq!(d.strategy(), Strategy::Tdd);
        assert!(d.fields().contains(&Field::Endpoint));
        assert!(d.fields().contains(&Field::Schedule));
        d.focus = Field::Strategy;
        d.change(1);
        assert_eq!(d.strategy(), Strategy::Holistic);
        assert!(!d.fields().contains(&Field::Schedule));
        d.focus = Field::Provider;
        d.change(-1);
        assert_eq!(d.provider(), "replay");
        assert!(d.fields().contains(&Field::Replay));
        assert!(d.setup().is_err(), "no session to replay");
        d.replays = vec![("r".into(), PathBuf::from("/s/r"))];
        assert_eq!(d.setup().unwrap().replay_from, Some(PathBuf::from("/s/r")));
        // Focus wraps around the visible rows.
        d.focus = Field::Jobs;
        d.move_focus(1);
        assert_eq!(d.focus, Field::Strategy);
    }

    #[test]
    fn tasks_and_numbers() {
        // The reference provider: no endpoint needed.
        let mut d = NewRunState {
            selected_task: Some("ClassEval_3".into()),
            provider: 1,
            focus: Field::Tasks,
            ..NewRunState::default()
        };
        d.change(1);
        assert_eq!(d.setup().unwrap().tasks, Some(vec!["ClassEval_3".into()]));
        d.change(1);
        assert_eq!(d.tasks, TaskPick::List);
        assert!(d.setup().is_err());
        d.move_focus(1);
        assert_eq!(d.focus, Field::TaskList);
        for c in "A_1, B_2".chars() {
            d.input(c);
        }
        assert_eq!(
            d.setup().unwrap().tasks,
            Some(vec!["A_1".into(), "B_2".into()])
        );
        d.focus = Field::Jobs;
        d.input('1');
        d.input('2');
        assert_eq!(d.jobs, 12);
        d.backspace();
        assert_eq!(d.jobs, 1);
        d.focus = Field::PublicTests;
        d.change(-1);
        assert_eq!(
            d.setup().unwrap().public_tests,
            format!("split:{MAX_SPLIT}")
        );
        d.focus = Field::MaxRepairs;
        d.change(-5);
        assert_eq!(d.max_repairs, 0);
    }

    #[test]
    fn without_a_profile_the_dialog_asks_for_a_base_url() {
        let mut d = NewRunState::default();
        d.set_profiles(
            vec![
                ("a".into(), Default::default()),
                ("b".into(), Default::default()),
            ],
            None,
        );
        assert_eq!(d.endpoint, 0);
        assert!(d.base_url.is_empty() && d.model.is_empty());
        let err = d.setup().unwrap_err();
        assert!(err.contains("base URL is needed"), "{err}");
        d.base_url = "http://127.0.0.1:1/v1".into();
        let err = d.setup().unwrap_err();
        assert!(err.contains("model is needed"), "{err}");
        d.model = "m".into();
        d.temperature = "hot".into();
        assert!(d.setup().unwrap_err().contains("temperature"));
        d.temperature = "0.7".into();
        let setup = d.setup().unwrap();
        assert_eq!(setup.endpoint, None);
        assert_eq!(setup.base_url.as_deref(), Some("http://127.0.0.1:1/v1"));
        assert_eq!(setup.temperature, Some(0.7));
        // Choosing a profile fills its values in; going back to none empties them.
        d.focus = Field::Endpoint;
        d.change(1);
        assert_eq!(d.value(Field::Endpoint), "a");
        d.change(-1);
        assert!(d.base_url.is_empty());
    }

    #[test]
    fn an_emptied_key_variable_is_no_key_not_the_profiles() {
        let mut d = NewRunState::default();
        let profile = EndpointConfig {
            base_url: Some("http://127.0.0.1:1/v1".into()),
            model: Some("m".into()),
            api_key_env: Some("PROFILE_KEY".into()),
            ..EndpointConfig::default()
        };
        d.set_profiles(vec![("p".into(), profile)], Some("p"));
        assert_eq!(
            d.setup().unwrap().api_key_env.as_deref(),
            Some("PROFILE_KEY")
        );
        d.api_key_env.clear();
        assert_eq!(d.setup().unwrap().api_key_env.as_deref(), Some(""));
        d.api_key_env = " MINE ".into();
        assert_eq!(d.setup().unwrap().api_key_env.as_deref(), Some("MINE"));
    }
}

//! The new-run dialog with a real config: the profiles of a config file (in a temporary XDG
//! config directory) are offered, its `default_endpoint` is chosen and its values prefilled;
//! the model is edited, sampling parameters typed, and the run goes through the real job to a
//! scripted OpenAI-compatible server, which sees those parameters in every request.
//!
//! One test in this binary: it sets the process's environment and loads its config once.
//! Update the snapshot with `INSTA_UPDATE=always cargo test --test tui_run_dialog`.

mod common;
mod tui_fixtures;

use std::time::{Duration, Instant};

use classlab::tui::EvalSetup;
use classlab::tui::action::Action;
use classlab::tui::app::{App, Effect, ScreenId};
use classlab::tui::jobs::Jobs;
use classlab::tui::runs::{Field, NewRunState};
use common::mock_llm::{MockLlm, MockRequest};
use common::reference_model::ReferenceModel;
use tui_fixtures::{app, screen};

fn dialog(app: &App) -> &NewRunState {
    match (app.layer() == Some(ScreenId::NewRun)).then_some(&app.screens.new_run) {
        Some(d) => d,
        other => panic!("no new-run dialog: {other:?}"),
    }
}

#[test]
fn the_dialog_runs_with_the_profile_and_what_was_edited() {
    let model = ReferenceModel::sample();
    let llm = MockLlm::start(move |req: &MockRequest| model.reply(req));
    let base_url = llm.base_url();
    let port = base_url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/v1")
        .to_string();

    let xdg = tempfile::tempdir().unwrap();
    let dir = xdg.path().join("classlab");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        format!(
            "default_endpoint = \"scripted\"\n\
             [endpoints.other]\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"other-model\"\n\
             [endpoints.scripted]\nbase_url = \"{base_url}\"\nmodel = \"scripted-model\"\n\
             api_key_env = \"CLASSLAB_DIALOG_TEST_KEY\"\n"
        ),
    )
    .unwrap();
    // SAFETY: the only test of this binary, before any thread that reads the environment.
    unsafe {
        std::env::set_var("XDG_CONFIG_HOME", xdg.path());
        std::env::set_var("CLASSLAB_DIALOG_TEST_KEY", "sesame");
    }
    let config = classlab::config::init().expect("the test config parses");
    assert_eq!(config.default_profile(), Some("scripted"));

    let sessions = tempfile::tempdir().unwrap();
    let mut app = app((80, 24));
    let mut jobs = Jobs::new(EvalSetup::new(sessions.path().to_path_buf(), None));
    let step = |app: &mut App, jobs: &mut Jobs, action: Action| {
        for effect in app.update(action) {
            jobs.execute(effect, &app.sh.data.dataset);
        }
    };
    let wait = |jobs: &mut Jobs, what: &str, pick: &dyn Fn(&Action) -> bool| -> Vec<Action> {
        let deadline = Instant::now() + Duration::from_secs(300);
        let mut got = Vec::new();
        loop {
            assert!(Instant::now() < deadline, "{what} never came");
            match jobs.try_recv() {
                Some(a) => {
                    let last = pick(&a);
                    got.push(a);
                    if last {
                        return got;
                    }
                }
                None => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    };

    // The dialog asks the job for the profiles, which come from the config file.
    step(&mut app, &mut jobs, Action::NewRun);
    for a in wait(&mut jobs, "the run choices", &|a| {
        matches!(a, Action::RunChoices { .. })
    }) {
        step(&mut app, &mut jobs, a);
    }
    let d = dialog(&app);
    assert_eq!(d.endpoints, ["other", "scripted"]);
    assert_eq!(d.value(Field::Endpoint), "scripted", "the default profile");
    assert_eq!(d.base_url, base_url);
    assert_eq!(d.model, "scripted-model");
    assert_eq!(d.api_key_env, "CLASSLAB_DIALOG_TEST_KEY");

    // Edit the model (strategy → provider → endpoint → model), then the sampling parameters.
    for a in [Action::Down, Action::Down, Action::Down, Action::ClearInput] {
        step(&mut app, &mut jobs, a);
    }
    assert_eq!(dialog(&app).focus, Field::Model);
    for c in "edited-model".chars() {
        step(&mut app, &mut jobs, Action::Input(c));
    }
    for (field, text) in [
        (Field::Temperature, "0.5"),
        (Field::MaxTokens, "900"),
        (Field::Seed, "42"),
    ] {
        while dialog(&app).focus != field {
            step(&mut app, &mut jobs, Action::Down);
        }
        for c in text.chars() {
            step(&mut app, &mut jobs, Action::Input(c));
        }
    }
    insta::assert_snapshot!(
        "run_dialog_profile_80x24",
        screen(&app).replace(&port, "PPPPP")
    );

    // Enter: the run starts with what was chosen, on the task selected in the list.
    let effects = app.update(Action::Submit);
    let [Effect::StartRun(setup)] = effects.as_slice() else {
        panic!("{effects:?}");
    };
    assert_eq!(setup.provider, "openai");
    assert_eq!(setup.endpoint.as_deref(), Some("scripted"));
    assert_eq!(setup.model.as_deref(), Some("edited-model"));
    assert_eq!(setup.base_url.as_deref(), Some(base_url.as_str()));
    assert_eq!(
        setup.api_key_env.as_deref(),
        Some("CLASSLAB_DIALOG_TEST_KEY")
    );
    assert_eq!(
        (setup.temperature, setup.max_tokens, setup.seed),
        (Some(0.5), Some(900), Some(42))
    );
    assert_eq!(setup.tasks, Some(vec!["Sample_0".to_string()]));
    assert_eq!(app.screen(), ScreenId::Run);
    for effect in effects {
        jobs.execute(effect, &app.sh.data.dataset);
    }
    let actions = wait(&mut jobs, "the end of the run", &|a| {
        matches!(a, Action::EvalEnded { .. })
    });
    for a in actions {
        if let Action::EvalEnded { error, .. } = &a {
            assert_eq!(error, &None, "the run failed");
        }
        step(&mut app, &mut jobs, a);
    }
    assert!(!app.sh.run_is_live());

    // Every request carried the edited model, the sampling parameters and the profile's key.
    let requests: Vec<MockRequest> = llm
        .requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .collect();
    assert!(!requests.is_empty(), "the server was never asked");
    for r in &requests {
        assert_eq!(r.body["model"], "edited-model", "{}", r.raw_body);
        assert_eq!(r.body["temperature"], 0.5, "{}", r.raw_body);
        assert_eq!(r.body["max_tokens"], 900, "{}", r.raw_body);
        assert_eq!(r.body["seed"], 42, "{}", r.raw_body);
        assert_eq!(r.header("authorization"), Some("Bearer sesame"));
    }
}

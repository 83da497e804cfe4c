//! `classlab forge ... --llm PROFILE`: a model (the mock server of tests/common/mock_llm.rs,
//! reached through the config's endpoint profile and the project's client) is asked for tests
//! of what each forged suite misses. A test that reaches the hidden branch and kills its
//! surviving mutants is kept and raises the mutation score; one that fails on the reference,
//! one that passes under one hash seed only, one that adds nothing, and a reply without code
//! are dropped with their reasons. Every prompt and reply is a `forge` session; a resumed
//! forge asks nothing again, and a forge replayed from the session (`--llm-replay`) writes the
//! same dataset without a model.
//! Needs Linux and the project's `.python/classeval`.

mod common;

use std::path::Path;

use common::mock_llm::{MockLlm, MockReply};
use serde_json::{Value, json};

// The explorer cannot guess a 23-character code ending in "zq": the branch that opens the
// vault stays untaken, and the mutants inside it survive the forged tests.
const VAULT: &str = r#"class Vault:
    """A vault that opens for the right code."""

    def __init__(self):
        self.opened = 0

    def try_code(self, code):
        """Try a code (a string); True when it opens the vault."""
        if isinstance(code, str) and len(code) == 23 and code.endswith("zq"):
            self.opened += 1
            return True
        return False

    def count(self):
        """How often the vault opened."""
        return self.opened
"#;

// The gate's word is one no search finds (a digest, not a pattern that pooled strings can be
// composed into), so the forge asks the model about Gate too.
const GATE: &str = r#"import hashlib


class Gate:
    """A gate with a secret word."""

    def __init__(self):
        self.state = "closed"

    def say(self, word):
        """Say a word; the gate opens for its secret word only."""
        digest = hashlib.sha256(str(word).encode()).hexdigest()
        if digest == "c468187b97915cfb913374c87324219ab73bca9ee328a0cc6a6f76add2ac5a50":
            self.state = "open"
        return self.state
"#;

// `test_seeded` holds under validation run 1's hash seed (1) and not under run 2's: flaky.
// `test_opens` needs the reply's `setUp`, which goes with it into a class of its own.
const VAULT_REPLY: &str = "Here are tests for the missing branch:\n\n```python\nimport unittest\n\n\
class VaultTestLLM(unittest.TestCase):\n    def setUp(self):\n        self.v = Vault()\n\n    \
def test_opens(self):\n        \
self.assertTrue(self.v.try_code(\"a\" * 21 + \"zq\"))\n        self.assertEqual(self.v.count(), 1)\n\n    \
def test_wrong_claim(self):\n        self.assertTrue(Vault().try_code(\"nope\"))\n\n    \
def test_nothing_new(self):\n        self.assertFalse(Vault().try_code(\"nope\"))\n\n    \
def test_seeded(self):\n        self.assertEqual(hash(\"abc\") % 2, 1)\n```\n";

fn store(dir: &Path) -> std::path::PathBuf {
    let repo = dir.join("repo/pkg");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::write(repo.join("vault.py"), VAULT).unwrap();
    std::fs::write(repo.join("gate.py"), GATE).unwrap();
    let db = dir.join("store.db");
    let out = assert_cmd::Command::cargo_bin("classlab")
        .unwrap()
        .args(["corpus", "build"])
        .arg(dir.join("repo"))
        .arg("--out")
        .arg(&db)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    db
}

/// `classlab --json forge DB --out OUT` with the mock as profile `mock`, plus `extra`.
fn forge(home: &Path, db: &Path, out: &Path, extra: &[&str]) -> Value {
    let out = assert_cmd::Command::cargo_bin("classlab")
        .unwrap()
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("NO_COLOR", "1")
        .arg("--json")
        .arg("--sessions")
        .arg(home.join("sessions"))
        .arg("--python")
        .arg(common::project_python("classeval"))
        .arg("forge")
        .arg(db)
        .arg("--out")
        .arg(out)
        .args(["--jobs", "1", "--iterations", "200"])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn chat_requests(llm: &MockLlm) -> usize {
    llm.requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/chat/completions"))
        .count()
}

fn task<'a>(ds: &'a Value, class: &str) -> &'a Value {
    ds["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["class_name"] == class)
        .unwrap_or_else(|| panic!("{class} forged: {ds}"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn model_written_tests_are_kept_only_when_they_pass_and_add_and_the_session_replays() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let db = store(home);
    let llm = MockLlm::start(|req| {
        let prompt = req.last_user_text();
        if prompt.contains("class `Vault`") {
            assert!(
                prompt.contains("len(code) == 23"),
                "the branch is named: {prompt}"
            );
            assert!(
                prompt.contains("still pass every test"),
                "survivors are named: {prompt}"
            );
            assert!(
                !prompt.contains("def _approx"),
                "helpers are not shown: {prompt}"
            );
            MockReply::text(VAULT_REPLY)
        } else {
            MockReply::text("I am sorry, I cannot think of any further test.")
        }
    });
    std::fs::create_dir_all(home.join("config/classlab")).unwrap();
    std::fs::write(
        home.join("config/classlab/config.toml"),
        format!(
            "[endpoints.mock]\nbase_url = \"{}\"\nmodel = \"scripted\"\n",
            llm.base_url()
        ),
    )
    .unwrap();
    let out = home.join("forged");
    let summary = forge(home, &db, &out, &["--llm", "mock"]);
    assert_eq!(chat_requests(&llm), 2, "one prompt per task: {summary}");
    let l = &summary["llm"];
    assert_eq!(l["proposed"], 5, "{summary}");
    assert_eq!(l["kept"], 1, "{summary}");
    assert_eq!(l["tasks_improved"], 1, "{summary}");
    assert_eq!(
        l["dropped"],
        json!({"adds_nothing": 1, "does_not_parse": 1, "fails_on_reference": 1, "flaky": 1}),
        "{summary}"
    );
    // The issue's keys stay as they are.
    for k in [
        "classes",
        "sample",
        "gated",
        "below_gate",
        "dropped",
        "funnel",
        "ks",
        "seconds",
    ] {
        assert!(summary.get(k).is_some(), "{k}: {summary}");
    }

    let ds: Value = serde_json::from_str(&read(&out.join("dataset.json"))).unwrap();
    let vault = task(&ds, "Vault");
    let module = vault["test"].as_str().unwrap();
    assert!(
        module.contains("class VaultTestLLM1(_FreshDir):"),
        "{module}"
    );
    assert!(
        module.contains("    def setUp(self):\n        self.v = Vault()\n"),
        "the reply's fixture comes with its test: {module}"
    );
    assert!(module.contains("def test_opens(self):"), "{module}");
    assert!(!module.contains("test_wrong_claim") && !module.contains("test_nothing_new"));
    let forge_prov = &vault["provenance"]["forge"];
    let rec = &forge_prov["llm"];
    assert_eq!(rec["kept"], 1, "{rec}");
    assert_eq!(rec["tests"], json!(["VaultTestLLM1.test_opens"]), "{rec}");
    let (before, after) = (
        rec["before"]["mutation"].as_f64().unwrap(),
        rec["after"]["mutation"].as_f64().unwrap(),
    );
    assert!(after > before, "the kill raises the mutation score: {rec}");
    assert_eq!(forge_prov["evidence"]["mutation"].as_f64(), Some(after));
    assert!(
        rec["after"]["branch"].as_f64() > rec["before"]["branch"].as_f64(),
        "{rec}"
    );
    let drops = rec["dropped_tests"].to_string();
    assert!(
        drops.contains("test_wrong_claim: fails_on_reference"),
        "{drops}"
    );
    assert!(drops.contains("test_nothing_new: adds_nothing"), "{drops}");
    assert!(drops.contains("test_seeded: flaky"), "{drops}");
    let gate = &task(&ds, "Gate")["provenance"]["forge"]["llm"];
    assert_eq!(gate["dropped"], json!({"does_not_parse": 1}), "{gate}");
    assert_eq!(gate["kept"], 0, "{gate}");
    // The gates are judged on the new figures.
    let evidence: Value = serde_json::from_str(&read(&out.join("evidence.json"))).unwrap();
    let vault_id = vault["task_id"].as_str().unwrap();
    assert_eq!(
        evidence[vault_id]["evidence"]["mutation"].as_f64(),
        Some(after),
        "{evidence}"
    );

    // The session: both prompts and replies, listed by `classlab sessions`.
    let session = Path::new(l["session"].as_str().unwrap()).to_path_buf();
    let meta: Value = serde_json::from_str(&read(&session.join("meta.json"))).unwrap();
    assert_eq!(
        (meta["kind"].as_str(), meta["model"].as_str()),
        (Some("forge"), Some("scripted"))
    );
    let events = read(&session.join("events.jsonl"));
    let kinds: Vec<String> = events
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        kinds.iter().filter(|k| *k == "llm_request").count(),
        2,
        "{events}"
    );
    assert_eq!(
        kinds.iter().filter(|k| *k == "llm_response").count(),
        2,
        "{events}"
    );
    assert!(events.contains("\"purpose\":\"forge_tests\""), "{events}");
    let listed = common::classlab(&home.join("sessions"))
        .args(["--json", "sessions"])
        .output()
        .unwrap();
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let row = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["session"] == meta["id"])
        .unwrap_or_else(|| panic!("{listed}"));
    // Its progress is that of the tasks the model was asked about, all answered.
    let asked: std::collections::BTreeSet<String> = events
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["kind"] == "llm_request")
        .map(|e| e["task_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        (
            row["progress"]["done"].as_u64(),
            row["progress"]["total"].as_u64()
        ),
        (Some(asked.len() as u64), Some(asked.len() as u64)),
        "{row}"
    );

    // Resumed (the same --out): nothing is asked again, the result stays.
    let first = read(&out.join("dataset.json"));
    let again = forge(home, &db, &out, &["--llm", "mock"]);
    assert_eq!(
        chat_requests(&llm),
        2,
        "a resume asks no question again: {again}"
    );
    assert_eq!(again["llm"]["kept"], 1, "{again}");
    assert_eq!(read(&out.join("dataset.json")), first);

    // Replayed into a fresh directory without any model: the same dataset, byte for byte.
    let replayed_out = home.join("replayed");
    let replayed = forge(
        home,
        &db,
        &replayed_out,
        &["--llm-replay", meta["id"].as_str().unwrap()],
    );
    assert_eq!(chat_requests(&llm), 2, "{replayed}");
    assert_eq!(replayed["llm"]["kept"], 1, "{replayed}");
    assert_eq!(read(&replayed_out.join("dataset.json")), first);
}

#[test]
fn an_unknown_profile_an_unreachable_model_and_rounds_without_a_model_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let db = store(home);
    std::fs::create_dir_all(home.join("config/classlab")).unwrap();
    // A port nothing listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    std::fs::write(
        home.join("config/classlab/config.toml"),
        format!("[endpoints.gone]\nbase_url = \"http://127.0.0.1:{port}/v1\"\nmodel = \"m\"\n"),
    )
    .unwrap();
    let run = |extra: &[&str]| {
        assert_cmd::Command::cargo_bin("classlab")
            .unwrap()
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("NO_COLOR", "1")
            .arg("--python")
            .arg(common::project_python("classeval"))
            .arg("forge")
            .arg(&db)
            .arg("--out")
            .arg(home.join("out"))
            .args(extra)
            .output()
            .unwrap()
    };
    let unknown = run(&["--llm", "nosuch"]);
    let err = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        !unknown.status.success() && err.contains("no endpoint profile \"nosuch\""),
        "{err}"
    );
    let gone = run(&["--llm", "gone"]);
    let err = String::from_utf8_lossy(&gone.stderr);
    assert!(
        !gone.status.success() && err.contains("cannot be reached"),
        "{err}"
    );
    let rounds = run(&["--llm-rounds", "2"]);
    assert_eq!(
        rounds.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&rounds.stderr)
    );
    assert!(!home.join("out/tasks").exists(), "nothing was forged");
}

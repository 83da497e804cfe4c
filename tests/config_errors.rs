//! A malformed `config.toml` stops every command, the TUI included, with an error naming the
//! file, line and column (exit 2); it is never silently replaced by the defaults. A missing
//! config file is the defaults.

use assert_cmd::Command;
use predicates::prelude::*;

/// A home whose config file (found through `XDG_CONFIG_HOME`) holds `text`, if any.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn with_config(text: Option<&str>) -> Home {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config/classlab");
        std::fs::create_dir_all(&config).unwrap();
        if let Some(text) = text {
            std::fs::write(config.join("config.toml"), text).unwrap();
        }
        Home { dir }
    }

    fn config_file(&self) -> String {
        self.dir
            .path()
            .join("config/classlab/config.toml")
            .display()
            .to_string()
    }

    fn classlab(&self) -> Command {
        let mut cmd = Command::cargo_bin("classlab").unwrap();
        cmd.env("HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", self.dir.path().join("config"))
            .env("XDG_DATA_HOME", self.dir.path().join("data"))
            // Sessions land below XDG_DATA_HOME; --sessions is refused by commands that read none.
            .env("NO_COLOR", "1");
        cmd
    }
}

/// Line 3 does not parse: `[keys` never closes its table header.
const MALFORMED: &str =
    "theme = \"dark\"\npython = \"/usr/bin/python3\"\n[keys\n\"j\" = \"down\"\n";

fn names_the_place(home: &Home) -> impl Predicate<str> {
    predicate::str::contains(format!("{}:3:", home.config_file()))
        .and(predicate::str::starts_with("classlab: error: "))
}

#[test]
fn eval_refuses_a_malformed_config() {
    let home = Home::with_config(Some(MALFORMED));
    let predictions = home.dir.path().join("none.json");
    home.classlab()
        .args(["eval", "--predictions"])
        .arg(&predictions)
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(names_the_place(&home));
}

#[test]
fn doctor_refuses_a_malformed_config() {
    let home = Home::with_config(Some(MALFORMED));
    home.classlab()
        .arg("doctor")
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(names_the_place(&home));
}

#[test]
fn the_tui_refuses_to_start_on_a_malformed_config() {
    let home = Home::with_config(Some(MALFORMED));
    for args in [&[][..], &["tui"][..]] {
        home.classlab()
            .args(args)
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(names_the_place(&home));
    }
}

#[test]
fn every_other_command_refuses_it_too() {
    let home = Home::with_config(Some(MALFORMED));
    for args in [
        &["tasks"][..],
        &["show", "Sample_0"],
        &["sessions"],
        &["lint"],
    ] {
        home.classlab()
            .args(args)
            .assert()
            .code(2)
            .stderr(names_the_place(&home));
    }
    // A value of the wrong type is as malformed as bad syntax, and says where.
    let home = Home::with_config(Some("theme = 3\n"));
    home.classlab()
        .arg("tasks")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "{}:1:9",
            home.config_file()
        )));
}

#[test]
fn a_missing_or_valid_config_is_fine() {
    for config in [
        None,
        Some("theme = \"light\"\n[keys]\n\"ctrl-n\" = \"down\"\n"),
    ] {
        let home = Home::with_config(config);
        home.classlab()
            .arg("tasks")
            .assert()
            .success()
            .stdout(predicate::str::contains("Sample_0"));
    }
}

//! `classlab doctor` lists every isolation layer of the sandbox and whether it is in force.

use serde_json::Value;

fn doctor(json: bool) -> std::process::Output {
    let mut cmd = assert_cmd::Command::cargo_bin("classlab").unwrap();
    let dir = tempfile::tempdir().unwrap();
    cmd.env("XDG_CONFIG_HOME", dir.path()).arg("doctor");
    if json {
        cmd.arg("--json");
    }
    cmd.output().unwrap()
}

#[test]
fn every_layer_is_listed() {
    let text = String::from_utf8_lossy(&doctor(false).stdout).into_owned();
    for layer in [
        "user namespace",
        "network namespace",
        "pid namespace",
        "mount namespace",
        "own root",
        "runs as",
        "seccomp",
        "landlock",
        "capabilities",
        "cgroups",
        "rlimits",
    ] {
        assert!(
            text.contains(layer),
            "doctor does not mention {layer}:\n{text}"
        );
    }
}

#[test]
fn the_json_report_says_which_layers_are_in_force() {
    let v: Value = serde_json::from_slice(&doctor(true).stdout).unwrap();
    let iso = &v["isolation"];
    for key in [
        "minimal_root",
        "seccomp",
        "run_as",
        "landlock_abi",
        "pid_namespace",
        "network_namespace",
        "mount_namespace",
        "cgroup",
        "warnings",
    ] {
        assert!(iso.get(key).is_some(), "no {key} in {iso:#}");
    }
    // Where a layer is missing, a warning says so.
    let warnings = iso["warnings"].as_array().unwrap();
    if iso["seccomp"] == false {
        assert!(
            warnings
                .iter()
                .any(|w| w.as_str().unwrap().contains("seccomp"))
        );
    }
    if iso["minimal_root"] == false {
        assert!(
            warnings
                .iter()
                .any(|w| w.as_str().unwrap().contains("root of its own"))
        );
    }
    // Running as root with its own root, each suite runs as an unprivileged user of its own,
    // from the first of their uids.
    if iso["root"] == true && iso["minimal_root"] == true {
        assert_eq!(iso["run_as"], classlab::exec::FIRST_SUITE_UID);
    }
}

//! `report --by` on the RealClassEval slice: two models' classes evaluated through the
//! sandbox, sliced by an Understand metric the dataset carries and by a built-in property,
//! with Spearman's ρ and its bootstrap interval.

mod common;

use common::classlab;

#[test]
fn realclasseval_sliced_by_an_understand_metric() {
    common::project_python("realclasseval");
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    let data = common::shared_data("realclasseval/csn");
    let mut ids = Vec::new();
    for model in ["gpt-4.1", "gpt-5"] {
        let v = common::json_despite_input_problems(
            classlab(&sessions)
                .args(["eval", "--json", "--dataset"])
                .arg(&data)
                .arg("--predictions")
                .arg(data.join("generated").join(format!("{model}.csv")))
                .output()
                .unwrap(),
        );
        ids.push(v["session"].as_str().unwrap().to_string());
    }
    for (by, bins) in [("CountLine", 3), ("methods", 2)] {
        let v = common::json_despite_input_problems(
            classlab(&sessions)
                .args(["report", "--json", "--by", by, "--bins", &bins.to_string()])
                .args(&ids)
                .output()
                .unwrap(),
        );
        let slices = v["slices"].as_array().unwrap();
        assert_eq!(slices.len(), 2);
        for (id, s) in ids.iter().zip(slices) {
            assert_eq!(s["property"], by);
            let bins = s["bins"].as_array().unwrap();
            let tasks: u64 = bins.iter().map(|b| b["tasks"].as_u64().unwrap()).sum();
            assert_eq!(tasks + s["missing"].as_u64().unwrap(), 12);
            if let Some(rho) = s["spearman"].get("class_partial_success") {
                let r = rho["rho"].as_f64().unwrap();
                let (lo, hi) = (
                    rho["ci95"][0].as_f64().unwrap(),
                    rho["ci95"][1].as_f64().unwrap(),
                );
                assert!((-1.0..=1.0).contains(&r) && lo <= hi);
                println!("{id}: class_partial_success vs {by}: ρ = {r:+.3} [{lo:+.3}, {hi:+.3}]");
            }
        }
    }
    // A property no task has is refused with the names that exist.
    let out = classlab(&sessions)
        .args(["report", "--by", "NoSuchMetric"])
        .arg(&ids[0])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("CountLine") && err.contains("dep_depth"),
        "{err}"
    );
}

//! Issue 56, item 5: an export whose `nodes[]` were edited. `golomb verify`
//! checked the proofs and passed the file, while `golomb openings` and
//! `golomb import` read the edited values. Now the nodes must agree with
//! each other and with every position the file's proofs reach: `verify`,
//! `openings` and `import` refuse the file, naming the node.

use serde_json::Value;

use golomb_tests::{Cluster, golomb_command};

use super::{MINUTES, stderr};

#[test]
fn an_edited_export_is_refused_by_verify_openings_and_import() {
    let cluster = Cluster::start(None, 30.0);
    let _worker = cluster.worker("w1", 1);
    let job = cluster.submit(&["--board", "5x5", "--goal", "classify", "--split-depth", "1"]);
    assert_eq!(cluster.wait_for_end(job, MINUTES)["state"], "done");
    let honest = cluster.dir.path().join("honest.json");
    let out = cluster.golomb(&["export", &job.to_string(), honest.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));

    let verify = golomb_command().args(["verify", "--json"]).arg(&honest).output().unwrap();
    assert!(verify.status.success(), "{}", stderr(&verify));
    let report: Value = serde_json::from_slice(&verify.stdout).unwrap();
    let proved = report["nodes"]["proved"].as_u64().unwrap();
    assert!(proved > 10, "the children's proofs reach the children's nodes: {report}");

    // A lost child (a winning opening) edited into a won one, as the attacker did.
    let mut file: Value = serde_json::from_slice(&std::fs::read(&honest).unwrap()).unwrap();
    let nodes = file["nodes"].as_array_mut().unwrap();
    let (index, node) = nodes
        .iter_mut()
        .enumerate()
        .find(|(_, n)| n["depth"] == 1 && n["value"] == "loss")
        .expect("5x5 has winning openings");
    node["value"] = "win".into();
    node["unit"] = false.into();
    let edited = cluster.dir.path().join("edited.json");
    std::fs::write(&edited, serde_json::to_vec(&file).unwrap()).unwrap();
    let named = format!("nodes[{index}]");

    let verify = golomb_command().arg("verify").arg(&edited).output().unwrap();
    assert!(!verify.status.success(), "verify passed an edited export: {}", String::from_utf8_lossy(&verify.stdout));
    assert!(stderr(&verify).contains(&named) && stderr(&verify).contains("proof proves a Loss"), "{}", stderr(&verify));
    let openings = golomb_command().arg("openings").arg(&edited).output().unwrap();
    assert!(!openings.status.success() && stderr(&openings).contains(&named), "{}", stderr(&openings));
    let db = cluster.dir.path().join("imported.db");
    let import = golomb_command().arg("import").arg(&edited).arg("--db").arg(&db).output().unwrap();
    assert!(!import.status.success(), "import took an edited export");
    assert!(
        stderr(&import).contains("disagrees with itself") && stderr(&import).contains(&named),
        "{}",
        stderr(&import)
    );

    // Nor with the edited child's proof taken out of children[], nor with its rules spelled another way.
    let mut file: Value = serde_json::from_slice(&std::fs::read(&edited).unwrap()).unwrap();
    let opening = file["nodes"][index]["line"].as_str().unwrap().rsplit(';').next().unwrap().to_string();
    file["children"].as_array_mut().unwrap().retain(|c| c["proof"]["moves"].as_str() != Some(opening.as_str()));
    file["job"]["rules"] = "".into();
    std::fs::write(&edited, serde_json::to_vec(&file).unwrap()).unwrap();
    for command in ["verify", "openings"] {
        let out = golomb_command().arg(command).arg(&edited).output().unwrap();
        assert!(!out.status.success() && stderr(&out).contains(&named), "{command}: {}", stderr(&out));
    }
    let import = golomb_command().arg("import").arg(&edited).arg("--db").arg(&db).output().unwrap();
    assert!(!import.status.success() && stderr(&import).contains(&named), "{}", stderr(&import));

    // Without its proofs the file still cannot carry a root whose value is not the job's.
    let mut file: Value = serde_json::from_slice(&std::fs::read(&honest).unwrap()).unwrap();
    file["proof"] = Value::Null;
    file["children"] = Value::Array(Vec::new());
    let root = file["nodes"].as_array_mut().unwrap().iter_mut().find(|n| n["depth"] == 0).expect("the root node");
    root["value"] = "loss".into();
    root["winning_move"] = Value::Null;
    root["unit"] = false.into();
    std::fs::write(&edited, serde_json::to_vec(&file).unwrap()).unwrap();
    let import = golomb_command().arg("import").arg(&edited).arg("--db").arg(&db).output().unwrap();
    assert!(!import.status.success(), "import took a root that is not the job's value");
    assert!(stderr(&import).contains("the job's root"), "{}", stderr(&import));
    // And the honest file goes in.
    let import = golomb_command().arg("import").arg(&honest).arg("--db").arg(&db).output().unwrap();
    assert!(import.status.success(), "{}", stderr(&import));
}

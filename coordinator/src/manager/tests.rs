//! The proof-number manager's tests, on in-memory trees (no SQLite).

use super::*;

fn leaf(id: i64, depth: u32, replies: u32, kind: NodeKind) -> PnLeaf {
    PnLeaf { id: NodeId(id), depth, replies, kind, busy: false }
}

/// A game tree given as children lists; leaves are won or lost for the side to move.
#[derive(Clone, Debug)]
struct Game {
    children: Vec<Vec<usize>>,
    leaf_value: Vec<Outcome>,
}

impl Game {
    fn value(&self, n: usize) -> Outcome {
        if self.children[n].is_empty() {
            return self.leaf_value[n];
        }
        if self.children[n].iter().any(|&c| self.value(c) == Outcome::Loss) { Outcome::Win } else { Outcome::Loss }
    }

    /// A random tree from a seed: up to `size` nodes, some children shared (a DAG).
    fn random(seed: u64, size: usize) -> Game {
        let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut children = vec![Vec::new()];
        let mut depth = vec![0usize];
        let mut leaf_value = vec![Outcome::Loss];
        let mut n = 0;
        while n < children.len() && children.len() < size {
            if depth[n] < 5 && (n == 0 || next() % 3 != 0) {
                let k = 1 + (next() % 4) as usize;
                for _ in 0..k {
                    // Now and then, share a node of the next depth made earlier.
                    let shared = (0..children.len()).find(|&m| depth[m] == depth[n] + 1 && next() % 5 == 0);
                    let c = shared.unwrap_or_else(|| {
                        children.push(Vec::new());
                        depth.push(depth[n] + 1);
                        leaf_value.push(if next() % 2 == 0 { Outcome::Win } else { Outcome::Loss });
                        children.len() - 1
                    });
                    if !children[n].contains(&c) && c != n {
                        children[n].push(c);
                    }
                }
            }
            n += 1;
        }
        // Only nodes without children are leaves; shared nodes keep their lists.
        Game { children, leaf_value }
    }
}

#[test]
fn a_leaf_root_is_handed_out_once() {
    let mut tree = PnTree::new(NodeId(1), false, &[leaf(1, 0, 5, NodeKind::Frontier)], &[]);
    assert_eq!(tree.stats().closest, None, "a root not expanded has no closest move");
    assert_eq!(tree.stats().proof_number, Some(1));
    assert_eq!(tree.stats().disproof_number, Some(5));
    assert_eq!(tree.select(), Some(NodeId(1)));
    assert_eq!(tree.select(), None, "in flight: not handed out twice");
    tree.set_busy(NodeId(1), false);
    assert_eq!(tree.select(), Some(NodeId(1)), "given back: handed out again");
}

/// A solve's root (node 1) with three waiting leaves: nodes 2, 3 and 4, of 9, 2 and 5 replies.
fn root_and_three_leaves() -> PnTree {
    let nodes = [
        leaf(1, 0, 3, NodeKind::Expanded),
        leaf(2, 1, 9, NodeKind::Frontier),
        leaf(3, 1, 2, NodeKind::Frontier),
        leaf(4, 1, 5, NodeKind::Frontier),
    ];
    let edges = [(NodeId(1), NodeId(2)), (NodeId(1), NodeId(3)), (NodeId(1), NodeId(4))];
    PnTree::new(NodeId(1), false, &nodes, &edges)
}

#[test]
fn the_child_with_the_fewest_replies_goes_first_and_workers_get_different_leaves() {
    let mut tree = root_and_three_leaves();
    assert_eq!(tree.stats().proof_number, Some(2), "φ(root) = least δ of the children");
    assert_eq!(tree.stats().disproof_number, Some(3), "δ(root) = the greatest φ + one per other child");
    assert_eq!(tree.stats().closest, Some(NodeId(3)), "the move closest to a proof: its δ is φ(root)");
    assert_eq!(tree.select(), Some(NodeId(3)));
    assert_eq!(tree.select(), Some(NodeId(4)));
    assert_eq!(tree.select(), Some(NodeId(2)));
    assert_eq!(tree.select(), None);
    assert_eq!(tree.stats().in_flight, 3);
    tree.decide(NodeId(3), Outcome::Win);
    assert_eq!(tree.stats().closest, Some(NodeId(4)), "a child won for its mover is closest no more");
    tree.decide(NodeId(4), Outcome::Loss);
    assert_eq!(tree.stats().proof_number, Some(0), "a lost child wins the root");
    assert_eq!(tree.stats().closest, None, "a decided root has no closest move");
    assert_eq!(tree.stats().frontier, 0, "a decided root needs nothing more");
}

/// A worker's disproof number for a leaf counts where it says the leaf is
/// closer to a disproof than its moves do: a lower δ moves the descent to
/// it, a higher one changes nothing, nor does a δ for a node that is not a
/// leaf, or of 0; a leaf's φ stays 1.
#[test]
fn a_workers_numbers_lower_a_leafs_numbers_never_raise_them() {
    let mut tree = root_and_three_leaves();
    assert_eq!(tree.stats().closest, Some(NodeId(3)));
    // Node 3's search found it farther than its 2 moves: ignored, it stays closest.
    tree.hint(NodeId(3), 40);
    assert_eq!(tree.stats().closest, Some(NodeId(3)));
    assert_eq!(tree.stats().disproof_number, Some(3), "φ of a leaf stays 1");
    // Node 2's search refuted all but one of its 9 moves: δ 1, now the closest.
    tree.hint(NodeId(2), 1);
    assert_eq!(tree.stats().proof_number, Some(1));
    assert_eq!(tree.stats().closest, Some(NodeId(2)));
    assert_eq!(tree.stats().disproof_number, Some(3), "φ stays 1: the greatest φ is unchanged");
    // A zero would be a value: ignored.
    tree.hint(NodeId(4), 0);
    assert_eq!(tree.stats().proof_number, Some(1));
    assert_eq!(tree.select(), Some(NodeId(2)));
    // Numbers for the root, which is no leaf: ignored.
    tree.hint(NodeId(1), 1);
    assert_eq!(tree.stats().disproof_number, Some(3));
    // Decided, a hinted leaf is decided: its numbers are its value's.
    tree.decide(NodeId(2), Outcome::Win);
    assert_eq!(tree.stats().closest, Some(NodeId(3)));
}

/// Children tied on δ: the closest is the one the descent takes, by least
/// φ, then least id (the order the tree holds them in may change on reload).
#[test]
fn the_closest_move_is_the_one_the_descent_takes() {
    // Node 2 has four children of 6 replies: φ = 6, δ = 4 (as 1 + 3 weak, or 4 summed).
    // Nodes 3 and 4 are leaves of 4 replies: φ = 1, δ = 4. All three tie on δ.
    let mut nodes = vec![
        leaf(1, 0, 3, NodeKind::Expanded),
        leaf(2, 1, 4, NodeKind::Expanded),
        leaf(3, 1, 4, NodeKind::Frontier),
        leaf(4, 1, 4, NodeKind::Frontier),
    ];
    let mut edges = vec![(NodeId(1), NodeId(4)), (NodeId(1), NodeId(2)), (NodeId(1), NodeId(3))];
    for id in 5..9 {
        nodes.push(leaf(id, 2, 6, NodeKind::Frontier));
        edges.push((NodeId(2), NodeId(id)));
    }
    let mut tree = PnTree::new(NodeId(1), false, &nodes, &edges);
    assert_eq!(tree.stats().proof_number, Some(4));
    assert_eq!(tree.stats().closest, Some(NodeId(3)), "2 has the greater φ; 3 and 4 tie: the least id");
    tree.decide(NodeId(3), Outcome::Win);
    assert_eq!(tree.stats().closest, Some(NodeId(4)));
}

#[test]
fn classify_hands_out_every_child_even_after_the_root_is_decided() {
    let nodes =
        [leaf(1, 0, 2, NodeKind::Expanded), leaf(2, 1, 4, NodeKind::Frontier), leaf(3, 1, 7, NodeKind::Frontier)];
    let edges = [(NodeId(1), NodeId(2)), (NodeId(1), NodeId(3))];
    let mut tree = PnTree::new(NodeId(1), true, &nodes, &edges);
    let first = tree.select().unwrap();
    tree.decide(first, Outcome::Loss);
    let second = tree.select().unwrap();
    assert_ne!(first, second);
    assert_eq!(tree.select(), None);
    assert_eq!(tree.stats().closest, None, "a classify job needs every child");
    tree.decide(second, Outcome::Win);
    assert_eq!(tree.select(), None);
    assert_eq!(tree.stats().frontier, 0);
}

#[test]
fn a_classify_root_the_store_decided_still_hands_out_its_children() {
    let nodes = [leaf(1, 0, 2, NodeKind::Won), leaf(2, 1, 4, NodeKind::Lost), leaf(3, 1, 7, NodeKind::Frontier)];
    let edges = [(NodeId(1), NodeId(2)), (NodeId(1), NodeId(3))];
    let mut tree = PnTree::new(NodeId(1), true, &nodes, &edges);
    assert_eq!(tree.select(), Some(NodeId(3)), "a reload after a losing child must not stop the job");
}

#[test]
fn a_revived_leaf_held_when_it_was_pruned_is_handed_out_again() {
    // root -> a, b; a -> x, y. x is leased; y is lost, so a is won and x pruned (its unit cancelled).
    let nodes = [
        leaf(1, 0, 2, NodeKind::Expanded),
        leaf(2, 1, 2, NodeKind::Expanded),
        leaf(3, 1, 1, NodeKind::Frontier),
        leaf(4, 2, 3, NodeKind::Frontier),
        leaf(5, 2, 3, NodeKind::Frontier),
    ];
    let edges = [(NodeId(1), NodeId(2)), (NodeId(1), NodeId(3)), (NodeId(2), NodeId(4)), (NodeId(2), NodeId(5))];
    let mut tree = PnTree::new(NodeId(1), false, &nodes, &edges);
    tree.set_busy(NodeId(4), true);
    tree.decide(NodeId(5), Outcome::Loss);
    // b is split; one of its children is x's position, whose unit the store revived (waiting).
    let x = PnLeaf { id: NodeId(4), depth: 2, replies: 3, kind: NodeKind::Frontier, busy: false };
    tree.set_busy(NodeId(3), true);
    tree.expand(NodeId(3), &[x]);
    assert_eq!(tree.select(), Some(NodeId(4)));
}

/// Plays the manager against random DAGs: it hands leaves out one at a
/// time, each leaf's unit either returns its value or runs out of budget
/// and is expanded; the root's numbers must come to say the true value.
#[test]
fn the_manager_reaches_the_true_value_on_random_trees() {
    for policy in policies() {
        for counting in countings() {
            for seed in 1..300u64 {
                play_random_tree(seed, policy, counting);
            }
        }
    }
}

/// The in-flight policies the random trees are played with: the
/// coordinator's at several caps, and the benches' experiments with the
/// `bench-policies` feature (not the virtual wins and losses, which can
/// make the root look decided while work remains, and so starve workers).
fn policies() -> Vec<InFlight> {
    let policies = [InFlight::Cap(1), InFlight::Cap(2), InFlight::Cap(4)].into_iter();
    #[cfg(feature = "bench-policies")]
    let policies = policies.chain([InFlight::Flag, InFlight::CapAll(2), InFlight::ByRoot]);
    policies.collect()
}

/// Every way of counting there is (the sum with the `bench-policies` feature).
fn countings() -> Vec<Counting> {
    let countings = [Counting::Weak].into_iter();
    #[cfg(feature = "bench-policies")]
    let countings = countings.chain([Counting::Sum]);
    countings.collect()
}

/// One game of [`the_manager_reaches_the_true_value_on_random_trees`].
fn play_random_tree(seed: u64, policy: InFlight, counting: Counting) {
    let game = Game::random(seed, 60);
    let truth = game.value(0);
    let id = |n: usize| NodeId(n as i64 + 1);
    let mut depth = vec![0u32; game.children.len()];
    for n in 0..game.children.len() {
        for &c in &game.children[n] {
            depth[c] = depth[n] + 1;
        }
    }
    let leaves_of = |g: usize| -> Vec<PnLeaf> {
        game.children[g]
            .iter()
            .map(|&c| leaf(id(c).0, depth[c], game.children[c].len() as u32, NodeKind::Frontier))
            .collect()
    };
    // Every fifth seed classifies the root's children (expanded when the job is planned).
    let classify = seed.is_multiple_of(5) && !game.children[0].is_empty();
    let root = leaf(1, 0, game.children[0].len() as u32, NodeKind::Frontier);
    let mut tree = PnTree::new(id(0), classify, &[root], &[]).with_policy(policy).with_counting(counting);
    if classify {
        tree.expand(id(0), &leaves_of(0));
    }
    // From two to five workers, each holding a leaf; the oldest is answered first.
    let workers = 2 + (seed % 4) as usize;
    let mut leases = 0;
    let mut held: Vec<NodeId> = Vec::new();
    // The node last expanded: on odd seeds, leaves come from below it first (a worker's home).
    let mut home: Option<NodeId> = None;
    loop {
        while held.len() < workers {
            let below = home.filter(|_| seed % 2 == 1).and_then(|h| tree.select_below(h));
            match below.or_else(|| tree.select()) {
                Some(n) => held.push(n),
                None => {
                    assert!(
                        tree.is_saturated(),
                        "seed {seed}, {policy:?} {counting:?}: a waiting leaf was not handed out"
                    );
                    break;
                }
            }
        }
        let Some(n) = (!held.is_empty()).then(|| held.remove(0)) else { break };
        leases += 1;
        assert!(leases < 10_000, "seed {seed}, {policy:?} {counting:?}: no end");
        let g = (n.0 - 1) as usize;
        // On seeds divisible by 3, a leaf chosen on a dive is expanded without a unit (as the store does).
        if seed.is_multiple_of(3)
            && !game.children[g].is_empty()
            && let Some(levels) = tree.dive_into(n)
        {
            tree.expand(n, &leaves_of(g));
            tree.mark_dived(n, levels);
            held.retain(|&h| tree.contains(h) && tree.nodes[tree.index[&h]].busy);
            continue;
        }
        // A unit expands when it has children and its "budget" (every other lease) runs out.
        if !game.children[g].is_empty() && (leases + seed as usize).is_multiple_of(2) {
            tree.expand(n, &leaves_of(g));
            if seed.is_multiple_of(4) {
                // The worker's numbers for the children: hints of any size change no value.
                for &c in &game.children[g] {
                    let s = seed as usize;
                    tree.hint(id(c), ((c * 13 + s) % 9) as u64);
                }
            }
            if seed.is_multiple_of(3) {
                // The unit got nowhere: the next leaves below it dive.
                tree.far_from_answer(n);
            }
            home = Some(n);
        } else {
            let value = game.value(g);
            tree.decide(n, value);
        }
        held.retain(|&h| tree.contains(h) && tree.nodes[tree.index[&h]].busy);
        assert_holds_only_what_is_needed(&tree, seed);
        assert_eq!(
            tree.answered(),
            tree.stats().frontier == 0,
            "seed {seed}, {policy:?} {counting:?}: answered, or leaves needed"
        );
    }
    let stats = tree.stats();
    assert_eq!(stats.frontier, 0, "seed {seed}, {policy:?} {counting:?}: leaves still needed");
    assert!(tree.answered(), "seed {seed}, {policy:?} {counting:?}: the job's answer is known");
    let decided = match truth {
        Outcome::Win => stats.proof_number == Some(0),
        _ => stats.disproof_number == Some(0),
    };
    assert!(decided, "seed {seed}, {policy:?} {counting:?}: the root should be decided as {truth:?}: {stats:?}");
}

/// The tree holds the root, the nodes reached from it through undecided
/// nodes and nothing else (what is below decided nodes is forgotten), and
/// every slot it does not hold is free.
fn assert_holds_only_what_is_needed(tree: &PnTree, seed: u64) {
    let mut reached = vec![false; tree.nodes.len()];
    let mut stack = vec![tree.root];
    reached[tree.root as usize] = true;
    while let Some(n) = stack.pop() {
        if matches!(tree.nodes[n].kind, NodeKind::Won | NodeKind::Lost) && n != tree.root {
            assert!(tree.nodes[n].children.is_empty(), "seed {seed}: a decided node keeps its children");
            continue;
        }
        for &c in &tree.nodes[n].children {
            if !std::mem::replace(&mut reached[c as usize], true) {
                stack.push(c);
            }
        }
    }
    for (n, node) in tree.nodes.iter().enumerate() {
        let free = node.kind == NodeKind::Free;
        assert_eq!(reached[n], !free, "seed {seed}: node {} ({:?}) held but not needed, or lost", node.id, node.kind);
        assert_eq!(free, tree.free.contains(&(n as u32)), "seed {seed}: slot {n} free but not listed");
    }
}

#[test]
fn what_is_below_a_decided_node_is_forgotten_and_still_counted() {
    // root 1 -> 2, 3; 2 -> 4, 5; 3 -> 5 (a transposition), 6; 4 -> 7.
    let nodes = [
        leaf(1, 0, 2, NodeKind::Expanded),
        leaf(2, 1, 2, NodeKind::Expanded),
        leaf(3, 1, 2, NodeKind::Expanded),
        leaf(4, 2, 1, NodeKind::Expanded),
        leaf(5, 2, 3, NodeKind::Frontier),
        leaf(6, 2, 3, NodeKind::Frontier),
        leaf(7, 3, 4, NodeKind::Frontier),
    ];
    let edges = [(1, 2), (1, 3), (2, 4), (2, 5), (3, 5), (3, 6), (4, 7)].map(|(p, c)| (NodeId(p), NodeId(c)));
    let mut tree = PnTree::new(NodeId(1), false, &nodes, &edges);
    assert_eq!((tree.stats().nodes, tree.stats().held), (7, 7));
    // 7 loses: 4 wins, and 2 (all its children but 5 undecided) stays open.
    tree.decide(NodeId(7), Outcome::Loss);
    assert!(!tree.contains(NodeId(7)), "below a decided node");
    assert!(tree.contains(NodeId(4)), "a decided child of an open node stays");
    let stats = tree.stats();
    assert_eq!((stats.nodes, stats.held, stats.nodes_proved + stats.nodes_disproved), (7, 6, 2));
    // 5 loses: 2 and 3 win by it (their children decide them), and what is below them goes, 5 too.
    tree.decide(NodeId(5), Outcome::Loss);
    for gone in [4, 5, 6] {
        assert!(!tree.contains(NodeId(gone)), "{gone} is below won nodes only");
    }
    let stats = tree.stats();
    assert_eq!((stats.nodes, stats.held), (7, 3), "the root and its two won children");
    assert_eq!(stats.nodes_proved + stats.nodes_disproved, 5, "7, 4, 5, 2 and 3 decided, counted though forgotten");
    assert_eq!(stats.disproof_number, Some(0), "both children won: the root loses");
    // A new node takes a forgotten one's slot.
    let slots = tree.nodes.len();
    tree.graft(&[leaf(8, 2, 2, NodeKind::Frontier)], &[], &[]);
    assert_eq!(tree.nodes.len(), slots);
}

/// A split whose stored children are all won already (transpositions of
/// decided nodes) with others not stored yet leaves its node open, as the
/// store does: the children not stored count before its numbers are
/// worked out, so it is neither lost nor emptied.
#[test]
fn a_node_whose_stored_children_all_won_stays_open_while_others_are_unborn() {
    let nodes = [leaf(1, 0, 1, NodeKind::Expanded), leaf(2, 1, 7, NodeKind::Frontier)];
    let mut tree = PnTree::new(NodeId(1), false, &nodes, &[(NodeId(1), NodeId(2))]);
    let won = [leaf(3, 2, 1, NodeKind::Won), leaf(4, 2, 1, NodeKind::Won)];
    tree.expand_with_unborn(NodeId(2), &won, 5, 2);
    let n2 = tree.index[&NodeId(2)];
    assert_eq!(tree.nodes[n2].kind, NodeKind::Expanded, "five children are still open");
    assert!(tree.contains(NodeId(3)) && tree.contains(NodeId(4)), "nothing below it forgotten");
    assert_eq!(tree.select(), None, "the descent asks for the next batch instead");
    assert_eq!(tree.take_births(), vec![NodeId(2)]);
}

#[test]
fn a_forgotten_node_reached_again_is_grafted_back_with_what_is_below_it() {
    // root 1 -> 2, 3; 2 -> 4 (won for its mover), 5; 5 -> 6, 7. 3 is open.
    let nodes = [
        leaf(1, 0, 2, NodeKind::Expanded),
        leaf(2, 1, 2, NodeKind::Expanded),
        leaf(3, 1, 2, NodeKind::Frontier),
        leaf(4, 2, 1, NodeKind::Frontier),
        leaf(5, 2, 2, NodeKind::Expanded),
        leaf(6, 3, 4, NodeKind::Frontier),
        leaf(7, 3, 5, NodeKind::Frontier),
    ];
    let edges = [(1, 2), (1, 3), (2, 4), (2, 5), (5, 6), (5, 7)].map(|(p, c)| (NodeId(p), NodeId(c)));
    let mut tree = PnTree::new(NodeId(1), false, &nodes, &edges);
    let whole = tree.clone();
    tree.decide(NodeId(4), Outcome::Loss);
    assert!(!tree.contains(NodeId(5)) && !tree.contains(NodeId(6)));
    // Node 3's split reaches 5 again: the store revives it and gives its part of the tree back.
    let below = [nodes[4], nodes[5], nodes[6]];
    tree.graft(&below, &[(NodeId(5), NodeId(6)), (NodeId(5), NodeId(7))], &[]);
    tree.expand(NodeId(3), &[below[0]]);
    let n5 = tree.index[&NodeId(5)];
    assert_eq!(tree.nodes[n5].children.len(), 2, "5's children are back");
    assert_eq!(
        (tree.nodes[n5].phi, tree.nodes[n5].delta),
        (whole.nodes[whole.index[&NodeId(5)]].phi, whole.nodes[whole.index[&NodeId(5)]].delta),
        "with the numbers it had"
    );
    let leaf = tree.select();
    assert!(matches!(leaf, Some(NodeId(6 | 7))), "the descent goes through 3 into 5: {leaf:?}");
}

#[test]
fn a_worker_gets_leaves_below_its_last_split_while_there_are_any() {
    // root -> a (expanded: a1, a2), b; b has the fewest replies, so the job's most-proving leaf is b.
    let nodes = [
        leaf(1, 0, 2, NodeKind::Expanded),
        leaf(2, 1, 2, NodeKind::Expanded),
        leaf(3, 1, 1, NodeKind::Frontier),
        leaf(4, 2, 9, NodeKind::Frontier),
        leaf(5, 2, 8, NodeKind::Frontier),
    ];
    let edges = [(NodeId(1), NodeId(2)), (NodeId(1), NodeId(3)), (NodeId(2), NodeId(4)), (NodeId(2), NodeId(5))];
    let mut tree = PnTree::new(NodeId(1), false, &nodes, &edges);
    let mut global = tree.clone();
    assert_eq!(global.select(), Some(NodeId(3)), "without a home, the most-proving leaf");
    let first = tree.select_below(NodeId(2)).unwrap();
    let second = tree.select_below(NodeId(2)).unwrap();
    assert_eq!([first, second].into_iter().collect::<std::collections::BTreeSet<_>>().len(), 2);
    assert!([first, second].iter().all(|n| [NodeId(4), NodeId(5)].contains(n)), "both below a");
    assert_eq!(tree.select_below(NodeId(2)), None, "nothing left below a: the caller falls back");
    assert_eq!(tree.select(), Some(NodeId(3)));
    // Once a is decided, nothing is handed out below it.
    let mut tree = PnTree::new(NodeId(1), false, &nodes, &edges);
    tree.decide(NodeId(4), Outcome::Loss);
    assert_eq!(tree.select_below(NodeId(2)), None, "a is won: its other child is not needed");
    assert_eq!(tree.select_below(NodeId(99)), None, "an unknown node");
}

/// A unit that got nowhere makes the next leaves below its node dive: two
/// levels first, then four times the levels dived straight above each time
/// a unit at a dive's bottom gets nowhere again; the root never dives, nor
/// a classify job's openings.
#[test]
fn a_node_far_from_its_answer_dives_deeper_each_time() {
    let mut tree = PnTree::new(NodeId(0), false, &[leaf(0, 0, 2, NodeKind::Frontier)], &[]);
    tree.far_from_answer(NodeId(0));
    tree.expand(NodeId(0), &[leaf(1, 1, 2, NodeKind::Frontier)]);
    assert_eq!(tree.dive_into(NodeId(1)), None, "the root never dives");
    // A unit at depth 1 gets nowhere: its children and grandchildren are expanded without units.
    tree.far_from_answer(NodeId(1));
    tree.expand(NodeId(1), &[leaf(2, 2, 2, NodeKind::Frontier)]);
    assert_eq!(tree.dive_into(NodeId(2)), Some(1));
    tree.expand(NodeId(2), &[leaf(3, 3, 2, NodeKind::Frontier)]);
    tree.mark_dived(NodeId(2), 1);
    assert_eq!(tree.dive_into(NodeId(3)), Some(0));
    tree.expand(NodeId(3), &[leaf(4, 4, 2, NodeKind::Frontier)]);
    tree.mark_dived(NodeId(3), 0);
    assert_eq!(tree.dive_into(NodeId(4)), None, "the dive's bottom goes out as a unit");
    // That unit gets nowhere too: two levels dived above it, so eight now.
    tree.far_from_answer(NodeId(4));
    tree.expand(NodeId(4), &[leaf(5, 5, 2, NodeKind::Frontier)]);
    assert_eq!(tree.dive_into(NodeId(5)), Some(7));

    let mut classify = PnTree::new(NodeId(0), true, &[leaf(0, 0, 2, NodeKind::Frontier)], &[]);
    classify.expand(NodeId(0), &[leaf(1, 1, 2, NodeKind::Frontier)]);
    classify.far_from_answer(NodeId(1));
    classify.expand(NodeId(1), &[leaf(2, 2, 2, NodeKind::Frontier)]);
    assert_eq!(classify.dive_into(NodeId(2)), None, "an opening of a classify never dives");
}

/// Weak proof numbers count a node's children that came back big once:
/// two split children of the root with φ = 7 and a waiting one add up to
/// 7 + 7 + 1 = 15 as a sum, and to 7 + 2 = 9 as weak numbers.
#[test]
fn weak_counting_counts_the_biggest_child_once_and_the_others_as_one() {
    for counting in countings() {
        let delta = match counting {
            #[cfg(feature = "bench-policies")]
            Counting::Sum => 15,
            Counting::Weak => 9,
        };
        let root = leaf(1, 0, 3, NodeKind::Frontier);
        let mut tree = PnTree::new(NodeId(1), false, &[root], &[]).with_counting(counting);
        tree.expand(NodeId(1), &[2, 3, 4].map(|id| leaf(id, 1, 5, NodeKind::Frontier)));
        tree.expand(NodeId(2), &[leaf(5, 2, 7, NodeKind::Frontier), leaf(6, 2, 9, NodeKind::Frontier)]);
        tree.expand(NodeId(3), &[leaf(7, 2, 7, NodeKind::Frontier), leaf(8, 2, 8, NodeKind::Frontier)]);
        let stats = tree.stats();
        assert_eq!(stats.disproof_number, Some(delta), "{counting:?}");
        assert_eq!(stats.proof_number, Some(2), "{counting:?}: the least δ of a child, two waiting leaves");
        // A child decided as a win for its side to move counts nothing; one lost for it decides the root.
        tree.decide(NodeId(4), Outcome::Win);
        assert_eq!(tree.stats().disproof_number, Some(delta - 1), "{counting:?}");
        tree.decide(NodeId(5), Outcome::Win);
        tree.decide(NodeId(6), Outcome::Win);
        assert!(tree.answered(), "{counting:?}: child 2 is lost for its side to move, so the root is won");
        assert_eq!(tree.stats().disproof_number, None, "{counting:?}: a won root's δ is infinite");

        // Every child won for its side to move: the root is lost, δ = 0.
        let mut lost = PnTree::new(NodeId(1), false, &[leaf(1, 0, 2, NodeKind::Frontier)], &[]).with_counting(counting);
        lost.expand(NodeId(1), &[2, 3].map(|id| leaf(id, 1, 5, NodeKind::Frontier)));
        lost.decide(NodeId(2), Outcome::Win);
        assert_eq!(lost.stats().disproof_number, Some(1), "{counting:?}: one child left to show");
        lost.decide(NodeId(3), Outcome::Win);
        assert_eq!(lost.stats().disproof_number, Some(0), "{counting:?}");
        assert_eq!(lost.stats().proof_number, None, "{counting:?}");
    }
}

/// A solve whose root (1) has one child (2) with ten waiting leaves (10 to
/// 19, replies 1 to 10): all stored, or only the `stored` fewest-replies ones.
fn wide(stored: usize) -> PnTree {
    let mut leaves = vec![leaf(1, 0, 1, NodeKind::Expanded), leaf(2, 1, 10, NodeKind::Expanded)];
    leaves.extend((0..stored as i64).map(|i| leaf(10 + i, 2, 1 + i as u32, NodeKind::Frontier)));
    let mut edges = vec![(NodeId(1), NodeId(2))];
    edges.extend((0..stored as i64).map(|i| (NodeId(2), NodeId(10 + i))));
    let mut tree = PnTree::new(NodeId(1), false, &leaves, &edges);
    tree.set_unborn(NodeId(2), 10 - stored as u32, 1 + stored as u32);
    tree
}

#[test]
fn children_not_stored_count_as_the_leaves_they_will_be() {
    for counting in countings() {
        let all = wide(10).with_counting(counting).stats();
        for stored in [1, 4, 9] {
            let some = wide(stored).with_counting(counting).stats();
            assert_eq!(
                (some.proof_number, some.disproof_number, some.frontier),
                (all.proof_number, all.disproof_number, all.frontier),
                "{counting:?}, {stored} stored"
            );
            assert_eq!(some.nodes, 2 + stored as u64, "the stand-in is not a node");
        }
    }
}

#[test]
fn a_descent_that_reaches_children_not_stored_asks_for_them_and_they_join_the_tree() {
    let mut tree = wide(4);
    let chosen: Vec<NodeId> = std::iter::from_fn(|| tree.select()).collect();
    assert_eq!(chosen, (10..14).map(NodeId).collect::<Vec<_>>(), "the stored leaves, fewest replies first");
    assert_eq!(tree.take_births(), [NodeId(2)], "then the rest are asked for, once");
    assert!(tree.take_births().is_empty());
    // Every stored leaf wins: node 2 is not lost while children are not stored.
    for id in 10..14 {
        tree.decide(NodeId(id), Outcome::Win);
    }
    assert!(!tree.answered(), "six children are still to show");
    let born: Vec<PnLeaf> = (14..20).map(|i| leaf(i, 2, 1 + (i - 10) as u32, NodeKind::Frontier)).collect();
    tree.birth(NodeId(2), &born, 0, 0);
    let rest: Vec<NodeId> = std::iter::from_fn(|| tree.select()).collect();
    assert_eq!(rest.len(), 6);
    assert!(tree.take_births().is_empty(), "every child is stored");
    for id in 14..20 {
        tree.decide(NodeId(id), Outcome::Win);
    }
    assert!(tree.answered(), "every child wins: node 2 is lost, the root won");
    // A birth the store could not make is asked for again.
    let mut tree = wide(1);
    assert_eq!(tree.select(), Some(NodeId(10)));
    assert_eq!(tree.select(), None);
    assert_eq!(tree.take_births(), [NodeId(2)]);
    tree.birth_failed(NodeId(2));
    assert_eq!(tree.select(), None);
    assert_eq!(tree.take_births(), [NodeId(2)]);
}

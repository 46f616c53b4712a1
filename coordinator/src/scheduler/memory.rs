//! The scheduler's [`Rows`] held in memory, for its tests: jobs, nodes,
//! edges and units as plain vectors, with the same meaning as the store's
//! tables (a unit waits, is leased or is done; a check unit re-solves
//! another unit's node and never goes to that unit's worker).

use golomb_engine::solve::Outcome;
use golomb_proto::{JobId, Kind, UnitId, WorkerId};

use super::tests::Fixture;
use crate::manager::{NodeId, NodeKind, PnLeaf, PnTree};
use crate::store::{CheckKind, Leased, Rows, Runnable};

/// A unit's state, as far as leases see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Waiting,
    Leased,
    Done,
}

#[derive(Debug)]
struct Job {
    id: JobId,
    kind: Kind,
    classify: bool,
    root: Option<NodeId>,
    priority: i64,
    paused: bool,
}

#[derive(Debug)]
struct Node {
    id: NodeId,
    job: JobId,
    depth: u32,
    value: Outcome,
    /// A check unit's own node, outside the job's tree.
    check: bool,
}

#[derive(Debug)]
struct Unit {
    id: UnitId,
    job: JobId,
    node: NodeId,
    rank: usize,
    state: State,
    worker: Option<WorkerId>,
    checking: Option<UnitId>,
    wants_proof: bool,
}

/// Jobs and their trees and units, in memory.
#[derive(Debug)]
pub struct MemoryRows {
    worker: WorkerId,
    jobs: Vec<Job>,
    nodes: Vec<Node>,
    edges: Vec<(NodeId, NodeId)>,
    units: Vec<Unit>,
    next_id: i64,
}

impl MemoryRows {
    /// Empty rows, leased from by worker 1.
    pub fn new() -> MemoryRows {
        MemoryRows {
            worker: WorkerId(1),
            jobs: Vec::new(),
            nodes: Vec::new(),
            edges: Vec::new(),
            units: Vec::new(),
            next_id: 1,
        }
    }

    fn id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    fn node(&mut self, job: JobId, depth: u32, check: bool) -> NodeId {
        let id = NodeId(self.id());
        self.nodes.push(Node { id, job, depth, value: Outcome::Unknown, check });
        id
    }

    fn unit(&mut self, job: JobId, node: NodeId, checking: Option<UnitId>, wants_proof: bool) -> UnitId {
        let id = UnitId(self.id() as u64);
        let rank = self.units.len();
        self.units.push(Unit { id, job, node, rank, state: State::Waiting, worker: None, checking, wants_proof });
        id
    }

    fn job(&mut self, kind: Kind, classify: bool, priority: i64) -> JobId {
        let id = JobId(self.id() as u64);
        self.jobs.push(Job { id, kind, classify, root: None, priority, paused: false });
        id
    }

    fn lease(&mut self, index: usize) -> Leased {
        let unit = &mut self.units[index];
        unit.state = State::Leased;
        unit.worker = Some(self.worker);
        Leased {
            unit: unit.id,
            job: unit.job,
            node: unit.node,
            check: unit.checking.is_some(),
            wants_proof: unit.wants_proof,
        }
    }

    fn unit_of(&self, node: NodeId) -> Option<usize> {
        self.units.iter().position(|u| u.node == node)
    }
}

impl Rows for MemoryRows {
    type Error = std::convert::Infallible;

    fn runnable_jobs(&mut self) -> Result<Vec<Runnable>, Self::Error> {
        let mut jobs: Vec<&Job> = self.jobs.iter().filter(|j| !j.paused).collect();
        jobs.sort_by_key(|j| (-j.priority, j.id));
        Ok(jobs.iter().map(|j| Runnable { job: j.id, kind: j.kind, classify: j.classify, root: j.root }).collect())
    }

    fn lease_queue(&mut self, job: JobId, max: usize) -> Result<Vec<Leased>, Self::Error> {
        let mut waiting: Vec<usize> = (0..self.units.len())
            .filter(|&i| self.units[i].job == job && self.units[i].state == State::Waiting)
            .collect();
        waiting.sort_by_key(|&i| self.units[i].rank);
        Ok(waiting.into_iter().take(max).map(|i| self.lease(i)).collect())
    }

    fn lease_checks(&mut self, job: JobId, kind: CheckKind, max: usize) -> Result<Vec<Leased>, Self::Error> {
        let worker = self.worker;
        let checkable: Vec<usize> = (0..self.units.len())
            .filter(|&i| {
                let u = &self.units[i];
                let checked_by = u.checking.and_then(|c| self.units.iter().find(|o| o.id == c)).and_then(|o| o.worker);
                u.job == job
                    && u.state == State::Waiting
                    && u.checking.is_some()
                    && checked_by != Some(worker)
                    && u.wants_proof == (kind == CheckKind::Proof)
            })
            .take(max)
            .collect();
        Ok(checkable.into_iter().map(|i| self.lease(i)).collect())
    }

    fn lease_node(&mut self, node: NodeId) -> Result<Option<Leased>, Self::Error> {
        Ok(self.unit_of(node).filter(|&i| self.units[i].state == State::Waiting).map(|i| self.lease(i)))
    }

    fn has_waiting_units(&mut self, job: JobId) -> Result<bool, Self::Error> {
        Ok(self.units.iter().any(|u| u.job == job && u.state == State::Waiting && u.checking.is_none()))
    }

    fn load_tree(&mut self, job: JobId, root: NodeId, classify: bool) -> Result<PnTree, Self::Error> {
        let leaves: Vec<PnLeaf> = self
            .nodes
            .iter()
            .filter(|n| n.job == job && !n.check)
            .map(|n| {
                let unit = self.unit_of(n.id).map(|i| self.units[i].state);
                let kind = match (n.value, unit) {
                    (Outcome::Win, _) => NodeKind::Won,
                    (Outcome::Loss, _) => NodeKind::Lost,
                    _ if self.edges.iter().any(|&(p, _)| p == n.id) => NodeKind::Expanded,
                    (_, Some(State::Waiting | State::Leased)) => NodeKind::Frontier,
                    _ => NodeKind::Stuck,
                };
                PnLeaf { id: n.id, depth: n.depth, replies: 3, kind, busy: unit == Some(State::Leased) }
            })
            .collect();
        Ok(PnTree::new(root, classify, &leaves, &self.edges))
    }
}

impl Fixture for MemoryRows {
    fn game(&mut self, priority: i64, classify: bool, children: usize) -> (JobId, Vec<NodeId>) {
        let job = self.job(Kind::GameValue, classify, priority);
        let root = self.node(job, 0, false);
        self.jobs.last_mut().expect("just added").root = Some(root);
        let children: Vec<NodeId> = (0..children)
            .map(|_| {
                let child = self.node(job, 1, false);
                self.edges.push((root, child));
                self.unit(job, child, None, false);
                child
            })
            .collect();
        (job, children)
    }

    fn queue(&mut self, priority: i64, units: usize) -> (JobId, Vec<NodeId>) {
        let job = self.job(Kind::TilingCount, false, priority);
        let nodes = (0..units)
            .map(|_| {
                let node = self.node(job, 1, false);
                self.unit(job, node, None, false);
                node
            })
            .collect();
        (job, nodes)
    }

    fn pause(&mut self, job: JobId) {
        self.jobs.iter_mut().filter(|j| j.id == job).for_each(|j| j.paused = true);
    }

    fn done(&mut self, node: NodeId, by: WorkerId, value: Outcome) {
        let i = self.unit_of(node).expect("a unit");
        self.units[i].state = State::Done;
        self.units[i].worker = Some(by);
        self.nodes.iter_mut().filter(|n| n.id == node).for_each(|n| n.value = value);
    }

    fn check(&mut self, node: NodeId, wants_proof: bool) -> NodeId {
        let checked = self.units[self.unit_of(node).expect("a unit")].id;
        let job = self.units.iter().find(|u| u.id == checked).expect("the unit").job;
        let check = self.node(job, 1, true);
        self.unit(job, check, Some(checked), wants_proof);
        check
    }

    fn as_worker(&mut self, worker: WorkerId) {
        self.worker = worker;
    }

    fn take_away(&mut self, node: NodeId) {
        let i = self.unit_of(node).expect("a unit");
        self.units[i].state = State::Done;
    }
}

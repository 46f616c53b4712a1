//! Statements run through the connection's cache of prepared statements.
//!
//! `Connection::execute` and `Connection::query_row` prepare their SQL on
//! every call: parsing and planning it again cost the coordinator about 4%
//! of a `golomb run` on many small units (the 7x7 classify at 0.05 s units),
//! most of it in a report's first few statements. The store calls these
//! instead; the cache holds [`STATEMENT_CACHE`](super::schema) statements.

use rusqlite::{Connection, Params, Row};

/// `execute` and `query_row` on a cached prepared statement.
pub(super) trait Cached {
    /// Runs `sql` with `params` and returns how many rows it changed
    /// (`Connection::execute`, prepared once per connection).
    fn cached_execute<P: Params>(&self, sql: &str, params: P) -> rusqlite::Result<usize>;

    /// Runs the query `sql` with `params` and maps its first row with `f`
    /// (`Connection::query_row`, prepared once per connection).
    fn cached_query_row<T, P: Params, F: FnOnce(&Row<'_>) -> rusqlite::Result<T>>(
        &self,
        sql: &str,
        params: P,
        f: F,
    ) -> rusqlite::Result<T>;
}

impl Cached for Connection {
    fn cached_execute<P: Params>(&self, sql: &str, params: P) -> rusqlite::Result<usize> {
        self.prepare_cached(sql)?.execute(params)
    }

    fn cached_query_row<T, P: Params, F: FnOnce(&Row<'_>) -> rusqlite::Result<T>>(
        &self,
        sql: &str,
        params: P,
        f: F,
    ) -> rusqlite::Result<T> {
        self.prepare_cached(sql)?.query_row(params, f)
    }
}

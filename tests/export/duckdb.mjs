// DuckDB's Node.js package, installed beside these scripts by
// scripts/setup: without it, a clear message and exit 1.
export let DuckDBInstance;
try {
  ({ DuckDBInstance } = await import('@duckdb/node-api'));
} catch (e) {
  console.error(`DuckDB's Node.js package is not installed beside this script (scripts/setup installs it): ${e.message}`);
  process.exit(1);
}

//! A handler that does not implement every tool of the set does not compile.
use toolmetadata_fixture::strict::Tools;

struct Handler;

impl Tools for Handler {}

fn main() {}

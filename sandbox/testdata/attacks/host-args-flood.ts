// expect: value "rejected"
// Twenty concurrent host calls with 2 MB of arguments each: the worker
// refuses them before they reach the host process.
const big = "x".repeat(2_000_000);
const rs = await Promise.allSettled(Array.from({ length: 20 }, () => t.echo(big)));
return rs.every((r) => r.status === "rejected" && String(r.reason.message).includes("KiB limit")) ? "rejected" : rs[0].status;

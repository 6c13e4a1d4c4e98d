// expect: truncated
// A 1 MB JSON result is cut at the output limit with a visible marker.
const rows = [];
for (let i = 0; i < 20000; i++) rows.push({ id: i, name: "row-" + i, lap: 90000 + i });
return rows;

// expect: truncated
// Megabytes of console output are cut at the output limit with a marker.
for (let i = 0; i < 5000; i++) console.log("line " + i + " " + "y".repeat(1000));
return "done";

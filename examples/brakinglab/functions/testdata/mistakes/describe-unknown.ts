// class 1: describe of a name that does not exist.
// reply: codemode.describe: brakinglab has no function "getLapTimes"
// reply: brakinglab.getLaps
const d = await codemode.describe(["getLapTimes"]);
return d;

// class 1: a function guessed from the task, not read from the index.
// reply: brakinglab.getPersonalBests is not a function.
// reply: brakinglab.getProfile
const bests = await brakinglab.getPersonalBests({ trackName: "Spa" });
return bests;

// class 5: a loop that retries an invalid call.
// reply: CALL_LIMIT
// reply: kept calling after being refused
// reply: brakinglab.getSessions at line 9
// reply: limit
let sessions;
while (!sessions) {
  try {
    sessions = await brakinglab.getSessions({ trackName: "Spa", limit: 500 });
  } catch (e) {
    console.log("retrying after", String(e));
  }
}
return sessions.length;

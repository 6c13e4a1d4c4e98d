// class 4: errors caught, partial data returned.
// reply: Calls that failed (the script caught their errors and went on):
// reply: brakinglab.getLapTelemetry at line 9
// reply: resolutionM
const sessions = await brakinglab.getSessions({ trackName: "Spa", limit: 2 });
const out: Record<string, unknown> = {};
for (const s of sessions) {
  try {
    out[s.id] = await brakinglab.getLapTelemetry({ sessionId: s.id, lapNumber: 1, resolutionM: 5 });
  } catch (e) {
    // skip sessions without telemetry
  }
}
return out;

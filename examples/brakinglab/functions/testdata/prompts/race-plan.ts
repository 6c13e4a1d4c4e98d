// "Plan fuel and stops for my next Spa race and put it in my race prep."
const events = await brakinglab.getRaceEvents({ status: "scheduled" });
const spa = events.find((e) => e.trackName.startsWith("Spa"));
if (!spa) return "No Spa race on the calendar";
const plan = await brakinglab.generateRaceStrategy({ raceEventId: spa.id, mandatoryStops: 1 });
const fuelPlan = plan.stints.map((s) => `stint ${s.number}: ${s.laps} laps, ${s.fuelL} L`).join("; ");
await brakinglab.saveRacePreparation({ raceEventId: spa.id, targetLapMs: plan.basis.lapMs, fuelPlan });
return { race: spa.name, laps: plan.totalLaps, pitLaps: plan.pitLaps, fuelPlan };

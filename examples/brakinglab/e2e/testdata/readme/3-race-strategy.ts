// "Plan fuel and pit stops for my next race."
const upcoming = await brakinglab.getRaceEvents({ status: "scheduled", from: new Date().toISOString() });
if (upcoming.length === 0) return "No scheduled races: add one with createRaceEvent.";
const next = upcoming.sort((a, b) => a.startsAt.localeCompare(b.startsAt))[0];
const plan = await brakinglab.generateRaceStrategy({ raceEventId: next.id });
console.log(`${next.name} at ${plan.trackName}: ${plan.totalLaps} laps, ${plan.stops} stop(s)`);
return { race: next.name, totalFuelL: plan.totalFuelL, pitLaps: plan.pitLaps, stints: plan.stints.length };

const profile = await brakinglab.getProfile({});
return profile;

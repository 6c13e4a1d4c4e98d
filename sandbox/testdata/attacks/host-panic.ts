// expect: value "caught"
// A panicking host function rejects the call; the script and the host survive.
try {
  await t.panic({});
  return "not rejected";
} catch (e: any) {
  return e.message.includes("internal error") ? "caught" : e.message;
}

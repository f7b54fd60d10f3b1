// jest setupFiles of the medium project: jest ignores testTimeout inside a project entry (it is
// a global option), so the medium tests' 60 s bound is applied here.
if (typeof jest !== 'undefined') jest.setTimeout(60000);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-is-pure',
      comment: 'src/core holds every rule and imports only src/core: no node:*, no packages, no adapters.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { pathNot: '^src/core/' },
    },
    {
      name: 'nothing-imports-cli',
      comment: 'The CLI is a leaf: the library must never load its dependencies.',
      severity: 'error',
      from: { pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'formats-import-only-core',
      comment: 'Format adapters are pure and SDK-free: they import only core types and helpers.',
      severity: 'error',
      from: { path: '^src/formats/' },
      to: { pathNot: '^src/(core|formats)/' },
    },
    {
      name: 'core-never-imports-formats-or-integrations',
      comment: 'The public layer hands a format to the core as a value.',
      severity: 'error',
      from: { path: '^src/(core|formats|stores|api)/' },
      to: { path: '^src/integrations/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};

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
      name: 'proxy-uses-the-public-layer',
      comment:
        'The proxy is an adapter over the public layer: it reaches the core only through src/api and the ' +
        "package's entry modules (src/*.ts), so a change inside the core's features cannot break it unseen. " +
        'From src/core it imports only the shared kernel: the message, port, error and format types ' +
        "(types.ts, ports.ts, errors.ts, format.ts), the context manager's types (manage/types.ts), and " +
        'the pure helpers every adapter shares: text and token counting (text/), generic collections and ' +
        'equality (util/), the cost model (cost/: its functions are exported at the package root), and the ' +
        "store's key and path-segment rules (store/: every store and adapter must apply the same ones).",
      severity: 'error',
      from: { path: '^src/proxy/' },
      to: {
        path: '^src/core/',
        pathNot: [
          '^src/core/(types|ports|errors|format)[.]ts$',
          '^src/core/manage/types[.]ts$',
          '^src/core/(text|util|cost|store)/',
        ],
      },
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

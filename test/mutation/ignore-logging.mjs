// A Stryker ignorer (docs/decisions.md, "Mutation testing"): mutants inside a `logger.<level>(...)`
// statement are ignored. A log line is for operators; its words and fields are not a rule of the
// product, and no test reads them. What a log line must never carry (processor ids, secrets) is
// checked where the values are built, not by mutating the line.
import { declareClassPlugin, PluginKind } from '@stryker-mutator/api/plugin';

class LoggingIgnorer {
  shouldIgnore(path) {
    const node = path.node;
    if (node.type !== 'ExpressionStatement' || node.expression.type !== 'CallExpression') return undefined;
    const callee = node.expression.callee;
    if (
      callee.type === 'MemberExpression' &&
      callee.object.type === 'Identifier' &&
      callee.object.name === 'logger'
    )
      return 'a log line for operators: its words are not a product rule';
    return undefined;
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.Ignore, 'logging', LoggingIgnorer)];

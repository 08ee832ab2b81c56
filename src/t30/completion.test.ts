import { describe, expect, it } from 'vitest';
import { errorByCode } from '../shared/errors.js';
import { COMPLETION_NAMES, completionCode, completionMessage } from './completion.js';

describe('completions', () => {
  it('every completion has a transmission code of the error table (or 0)', () => {
    for (const c of COMPLETION_NAMES) {
      const code = completionCode(c);
      const def = errorByCode(code)!;
      expect(def, c).toBeDefined();
      expect(def.kind === 'transmission' || code === 0 || c === 'T30_ERR_INTERNAL', c).toBe(true);
    }
  });

  it('maps the endings docs/api.md lists', () => {
    expect(completionCode('T30_ERR_OK')).toBe(0);
    expect(completionCode('T30_ERR_T1_EXPIRED')).toBe(-3103);
    expect(completionCode('T30_ERR_CANNOT_TRAIN')).toBe(-3105);
    expect(completionCode('T30_ERR_INCOMPATIBLE')).toBe(-3106);
    expect(completionCode('T30_ERR_TX_PHDDEAD')).toBe(-3107);
    expect(completionCode('T30_ERR_RETRYDCN')).toBe(-3107);
    expect(completionCode('T30_ERR_CALLDROPPED')).toBe(-3108);
    expect(completionCode('T30_ERR_BADTIFF')).toBe(-3109);
    expect(completionCode('T30_ERR_INTERNAL')).toBe(-3199);
  });

  it('says what happened in words', () => {
    expect(completionMessage('T30_ERR_OK')).toBe('Success');
    expect(completionMessage('T30_ERR_T1_EXPIRED', 'no DIS')).toBe('No fax machine answered: T1 expired before the other side identified itself (no DIS)');
    expect(completionMessage('T30_ERR_CANNOT_TRAIN')).toBe('Training failed at every rate: every training check was answered FTT');
  });
});

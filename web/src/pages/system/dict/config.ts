/**
 * Dictionaries and business dictionaries (contract "Dictionaries"; code, name, key, sort and
 * sealed required): the list holds dictionaries; each opens its entries, whose form has the
 * dictionary's code and parent fixed.
 */
import { dictApi, type Dict, type DictApi, type DictKind } from '../../../api/system/dict'
import type { CrudConfig, CrudField } from '../../../components/crud/types'

/** Spec §9: the dictionary tree's root code. */
export const dictRootCode = 'DICT'

const menuCodes: Record<DictKind, string> = { dict: 'dict', 'dict-biz': 'dictbiz' }

const sealedOptions = [
  { value: 0, label: 'common.no' },
  { value: 1, label: 'common.yes' },
] as const

/** The fields both forms share (all required, each with its own message). */
const common: readonly CrudField<Dict>[] = [
  { name: 'dictValue', label: 'dict.dictValue', required: 'dict.dictValueRequired', search: true },
  { name: 'dictValueEn', label: 'dict.dictValueEn', hideInTable: true },
  { name: 'sort', label: 'dict.sort', type: 'number', required: 'dict.sortRequired' },
  {
    name: 'isSealed',
    label: 'dict.isSealed',
    type: 'select',
    required: 'dict.isSealedRequired',
    options: sealedOptions,
  },
  { name: 'remark', label: 'dict.remark', type: 'textarea', hideInTable: true },
]

/**
 * Whether the caller's tenant may change a row: business dictionaries show the platform's rows
 * of the codes a tenant has none of, read-only (the server answers 404 to changing them).
 */
export function ownRow(tenantId: string): (row: Dict) => boolean {
  return (row) => !row.tenantId || row.tenantId === tenantId
}

/** The list of dictionaries; `openEntries` opens a dictionary's entries. */
export function dictConfig(
  kind: DictKind,
  api: DictApi,
  openEntries: (dict: Dict) => void,
  tenantId = '',
): CrudConfig<Dict> {
  const menuCode = menuCodes[kind]
  return {
    menuCode,
    api,
    rowEditable: ownRow(tenantId),
    fields: [
      { name: 'id', label: 'dict.code', hideInTable: true, hideInForm: true },
      { name: 'code', label: 'dict.code', required: 'dict.codeRequired', search: true },
      // A dictionary row itself has dictKey -1 (contract); the entries carry the real keys.
      {
        name: 'dictKey',
        label: 'dict.dictKey',
        required: 'dict.dictKeyRequired',
        hideInTable: true,
        hideInForm: true,
      },
      ...common,
    ],
    addDefaults: { isSealed: 0, sort: 1 },
    beforeSubmit: (body) => ({ ...body, parentId: '0', dictKey: '-1' }),
    rowActions: [
      {
        key: 'config',
        label: 'dict.config',
        permission: `${menuCode}_view`,
        run: (row) => openEntries(row),
      },
    ],
  }
}

/**
 * The entries of one dictionary (`child-list?parentId=`): `code` and `parentId` are the
 * dictionary's, shown but not editable (the page passes them as fixed values).
 */
export function dictEntryConfig(
  kind: DictKind,
  api: DictApi,
  parent: Dict,
  tenantId = '',
): CrudConfig<Dict> {
  return {
    menuCode: menuCodes[kind],
    api: { ...api, list: api.childList },
    rowEditable: ownRow(tenantId),
    fields: [
      { name: 'id', label: 'dict.code', hideInTable: true, hideInForm: true },
      { name: 'code', label: 'dict.code', required: 'dict.codeRequired' },
      {
        name: 'parentId',
        label: 'dict.parentId',
        type: 'select',
        hideInTable: true,
        loadOptions: () => Promise.resolve([{ value: parent.id ?? '', label: parent.dictValue }]),
      },
      { name: 'dictKey', label: 'dict.dictKey', required: 'dict.dictKeyRequired', search: true },
      ...common,
    ],
    addDefaults: { isSealed: 0, sort: 1 },
  }
}

export const dictApis: Record<DictKind, DictApi> = {
  dict: dictApi('dict'),
  'dict-biz': dictApi('dict-biz'),
}

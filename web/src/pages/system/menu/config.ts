/** /system/menu: menus and buttons, as a lazily loaded tree (contract "Menus"). */
import { menuApi, menuLazyList, menuTree, type Menu } from '../../../api/system/menuAdmin'
import type { CrudConfig } from '../../../components/crud/types'

export const menuConfig: CrudConfig<Menu> = {
  menuCode: 'menu',
  api: menuApi,
  tree: { loadChildren: (row) => menuLazyList(row.id ?? '0') },
  dialogWidth: 800,
  fields: [
    { name: 'id', label: 'menuAdmin.name', hideInTable: true, hideInForm: true },
    { name: 'name', label: 'menuAdmin.name', required: 'menuAdmin.nameRequired', search: true },
    { name: 'nameEn', label: 'menuAdmin.nameEn', hideInTable: true },
    { name: 'code', label: 'menuAdmin.code', required: 'menuAdmin.codeRequired', search: true },
    { name: 'alias', label: 'menuAdmin.alias', hideInTable: true },
    {
      name: 'parentId',
      label: 'menuAdmin.parentId',
      type: 'treeSelect',
      loadTree: menuTree,
      hideInTable: true,
    },
    { name: 'path', label: 'menuAdmin.path' },
    { name: 'source', label: 'menuAdmin.source' },
    {
      name: 'category',
      label: 'menuAdmin.category',
      type: 'select',
      required: 'menuAdmin.categoryRequired',
      options: [
        { value: 1, label: 'menuAdmin.categoryMenu' },
        { value: 2, label: 'menuAdmin.categoryButton' },
      ],
    },
    {
      name: 'action',
      label: 'menuAdmin.action',
      type: 'select',
      hideInTable: true,
      options: [
        { value: 0, label: 'menuAdmin.actionToolbar' },
        { value: 1, label: 'menuAdmin.actionRow' },
        { value: 2, label: 'menuAdmin.actionBoth' },
      ],
    },
    { name: 'sort', label: 'menuAdmin.sort', type: 'number', required: 'menuAdmin.sortRequired' },
    {
      name: 'isOpen',
      label: 'menuAdmin.isOpen',
      type: 'select',
      hideInTable: true,
      options: [
        { value: 1, label: 'common.no' },
        { value: 2, label: 'common.yes' },
      ],
    },
    { name: 'remark', label: 'menuAdmin.remark', type: 'textarea', hideInTable: true },
  ],
  addDefaults: { category: 1, action: 0, isOpen: 1, sort: 1 },
  beforeSubmit: (body) => ({ ...body, parentId: body.parentId ?? '0' }),
  rowActions: [
    {
      key: 'add-child',
      label: 'crud.addChild',
      permission: 'menu_add',
      // Buttons have no children.
      visible: (row) => row.category !== 2,
      run: (row, ctx) => ctx.openAdd({ parentId: row.id }),
    },
  ],
}

/** /authority/datascope and /authority/apiscope (contract "Data scopes", "API scopes"). */
import { deptTree } from '../../../api/system/dept'
import { menuTree } from '../../../api/system/menuAdmin'
import { apiScopeApi, dataScopeApi, type ApiScope, type DataScope } from '../../../api/system/scope'
import type { CrudConfig, CrudField } from '../../../components/crud/types'

const menuField: CrudField = {
  name: 'menuId',
  label: 'scope.menuId',
  type: 'treeSelect',
  required: 'scope.menuIdRequired',
  loadTree: menuTree,
  hideInTable: true,
}

export const dataScopeConfig: CrudConfig<DataScope> = {
  menuCode: 'datascope',
  api: dataScopeApi,
  fields: [
    { name: 'id', label: 'scope.scopeName', hideInTable: true, hideInForm: true },
    menuField,
    {
      name: 'resourceCode',
      label: 'scope.resourceCode',
      required: 'scope.resourceCodeRequired',
      search: true,
    },
    {
      name: 'scopeName',
      label: 'scope.scopeName',
      required: 'scope.scopeNameRequired',
      search: true,
    },
    {
      name: 'scopeColumn',
      label: 'scope.scopeColumn',
      type: 'select',
      required: 'scope.scopeColumnRequired',
      options: [
        { value: 'create_user', label: 'scope.columnUser' },
        { value: 'create_dept', label: 'scope.columnDept' },
      ],
    },
    {
      name: 'scopeType',
      label: 'scope.scopeType',
      type: 'select',
      dict: 'data_scope_type',
      numeric: true,
      required: 'scope.scopeTypeRequired',
    },
    {
      // The depts of a custom scope (type 5).
      name: 'scopeValue',
      label: 'scope.scopeValue',
      type: 'treeSelect',
      multiple: true,
      loadTree: () => deptTree(),
      hideInTable: true,
    },
    { name: 'remark', label: 'scope.remark', type: 'textarea', hideInTable: true },
  ],
}

export const apiScopeConfig: CrudConfig<ApiScope> = {
  menuCode: 'apiscope',
  api: apiScopeApi,
  fields: [
    { name: 'id', label: 'scope.scopeName', hideInTable: true, hideInForm: true },
    menuField,
    {
      name: 'resourceCode',
      label: 'scope.resourceCode',
      required: 'scope.resourceCodeRequired',
      search: true,
    },
    {
      name: 'scopeName',
      label: 'scope.scopeName',
      required: 'scope.scopeNameRequired',
      search: true,
    },
    { name: 'scopePath', label: 'scope.scopePath', required: 'scope.scopePathRequired' },
    {
      name: 'scopeType',
      label: 'scope.scopeType',
      type: 'select',
      dict: 'api_scope_type',
      numeric: true,
      required: 'scope.scopeTypeRequired',
    },
    { name: 'remark', label: 'scope.remark', type: 'textarea', hideInTable: true },
  ],
}
